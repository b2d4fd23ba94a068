package dev.tollgate.core.limits;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;

/**
 * A token bucket as users write it: {@code capacity} tokens of burst, refilled at
 * {@code refillPerSecond}. Validated exactly as {@link RateLimitRule} validates the same fields (same
 * bounds, same {@link dev.tollgate.core.InvalidRuleException} naming {@code capacity} or
 * {@code refillPerSecond}), and converted to the same integer units, so the arithmetic is
 * {@link dev.tollgate.core.TokenBucketMath}'s.
 *
 * @param capacity        burst size in tokens, 1 to {@link RateLimitRule#MAX_CAPACITY}
 * @param refillPerSecond tokens per second, 0.001 to 10<sup>9</sup>, at most three decimals
 */
public record TokenBucket(long capacity, double refillPerSecond) implements Allowance {

    public TokenBucket {
        RateLimitRule.of(capacity, refillPerSecond); // throws InvalidRuleException naming the field
    }

    @Override
    public long maxCost() {
        return capacity;
    }

    /**
     * The bucket's limits in the arithmetic's units (micro-tokens, ms) for a request costing
     * {@code cost} tokens. A cost above the capacity is kept as it is: such a request never passes.
     */
    public BucketLimits limits(long cost) {
        if (cost < 1 || cost > LimitCharge.MAX_COST) {
            throw new IllegalArgumentException("cost must be between 1 and " + LimitCharge.MAX_COST + ", was " + cost);
        }
        // Validated when this bucket was made: converted here without building a rule again (its
        // check of the rate's decimals was a third of a microsecond, several times a request).
        return BucketLimits.of(capacity, refillPerSecond, cost);
    }
}
