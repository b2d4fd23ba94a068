package dev.tollgate.core;

import java.math.BigDecimal;

/**
 * A limit as users write it: a bucket of {@code capacity} tokens (the burst) refilled at
 * {@code refillPerSecond} tokens per second, each request taking {@code cost} tokens.
 *
 * <p>Validated when built, so a bad rule fails where it is configured and names the bad value.
 * The refill rate may be fractional down to 0.001 token/s (one token every 1000 s); finer
 * precision is refused rather than silently rounded.
 *
 * @param capacity        burst size in tokens, 1 to {@value #MAX_CAPACITY}
 * @param refillPerSecond tokens added per second, 0.001 to 10<sup>9</sup>, at most three decimals
 * @param cost            tokens one request takes, 1 to {@code capacity}
 * @param shadow          a dry run: the rule is evaluated and counted, but never rejects (to roll out
 *                        a new limit safely)
 * @param shards          how many sub-buckets the bucket is split into, spread over Redis Cluster
 *                        nodes (1: not split); see {@link ShardedBucketStore} for the accuracy
 */
public record RateLimitRule(long capacity, double refillPerSecond, long cost, boolean shadow, int shards) {

    public static final long MAX_CAPACITY = 1_000_000_000L;
    public static final double MAX_REFILL_PER_SECOND = 1_000_000_000d;
    /** Most sub-buckets a rule may be split into. */
    public static final int MAX_SHARDS = 64;

    public RateLimitRule {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "capacity must be between 1 and " + MAX_CAPACITY + ", was " + capacity);
        }
        if (!(refillPerSecond > 0) || refillPerSecond > MAX_REFILL_PER_SECOND) {
            throw new IllegalArgumentException(
                    "refillPerSecond must be > 0 and <= 1e9, was " + refillPerSecond);
        }
        if (BigDecimal.valueOf(refillPerSecond).stripTrailingZeros().scale() > 3) {
            throw new IllegalArgumentException(
                    "refillPerSecond has at most three decimals (0.001 token/s), was " + refillPerSecond);
        }
        if (cost < 1 || cost > capacity) {
            throw new IllegalArgumentException(
                    "cost must be between 1 and the capacity " + capacity + ", was " + cost);
        }
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException("shards must be between 1 and " + MAX_SHARDS + ", was " + shards);
        }
    }

    /** An enforced or shadow rule whose bucket is not split. */
    public RateLimitRule(long capacity, double refillPerSecond, long cost, boolean shadow) {
        this(capacity, refillPerSecond, cost, shadow, 1);
    }

    /** An enforced rule. */
    public RateLimitRule(long capacity, double refillPerSecond, long cost) {
        this(capacity, refillPerSecond, cost, false, 1);
    }

    /** A rule whose requests cost one token each. */
    public static RateLimitRule of(long capacity, double refillPerSecond) {
        return new RateLimitRule(capacity, refillPerSecond, 1);
    }

    /** The same rule as a dry run. */
    public RateLimitRule asShadow() {
        return new RateLimitRule(capacity, refillPerSecond, cost, true, shards);
    }

    /** The same limits in the arithmetic's integer units (exact: no rounding happens here). */
    public BucketLimits limits() {
        return new BucketLimits(
                capacity * BucketLimits.MICROS_PER_TOKEN,
                Math.round(refillPerSecond * 1000d),
                cost * BucketLimits.MICROS_PER_TOKEN);
    }
}
