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

    /** The bucket's limits in micro-tokens per ms, for requests costing {@code cost} tokens (1 to capacity). */
    public BucketLimits limits(long cost) {
        return new RateLimitRule(capacity, refillPerSecond, cost).limits();
    }
}
