package dev.tollgate.core;

/**
 * Token-bucket parameters in the integer units the arithmetic works in: <em>micro-tokens</em>
 * (10<sup>-6</sup> of a token) and milliseconds. Integers make refill exact: a bucket that refills
 * for {@code t} ms gains exactly {@code t * refillMicrosPerMilli} micro-tokens, with no float drift
 * however many small steps it takes, in Java and in the Redis script alike.
 *
 * <p>All values stay below 2<sup>53</sup> so that Lua, whose numbers are doubles, computes them
 * exactly too.
 *
 * @param capacityMicros       burst size, in micro-tokens
 * @param refillMicrosPerMilli refill rate, in micro-tokens per millisecond (1 = 0.001 token/s)
 * @param costMicros           what one request takes, in micro-tokens; larger than the capacity
 *                             means the request can never pass
 */
public record BucketLimits(long capacityMicros, long refillMicrosPerMilli, long costMicros) {

    /** Micro-tokens per token. The Redis script uses the same scale. */
    public static final long MICROS_PER_TOKEN = 1_000_000L;

    /** Largest value any field may take: Lua computes integers exactly up to 2^53. */
    public static final long MAX_MICROS = 1L << 53;

    public BucketLimits {
        requireInRange("capacityMicros", capacityMicros);
        requireInRange("refillMicrosPerMilli", refillMicrosPerMilli);
        requireInRange("costMicros", costMicros);
    }

    /**
     * A bucket as users write it ({@code capacity} tokens, {@code refillPerSecond}, {@code cost}
     * tokens a request) in these units: micro-tokens, and the rate rounded to a micro-token per ms,
     * which is exact for the rates {@link RateLimitRule} accepts (at most three decimals). The one
     * conversion {@link RateLimitRule} and {@code TokenBucket} both use; the values are not checked
     * against a rule's bounds here, only against this record's.
     */
    public static BucketLimits of(long capacity, double refillPerSecond, long cost) {
        return new BucketLimits(capacity * MICROS_PER_TOKEN, Math.round(refillPerSecond * 1000d), cost * MICROS_PER_TOKEN);
    }

    private static void requireInRange(String name, long value) {
        if (value <= 0 || value > MAX_MICROS) {
            throw new IllegalArgumentException(
                    name + " must be in [1, 2^53], was " + value);
        }
    }

    /** Whole tokens the bucket holds when full (rounded down). */
    public long capacityTokens() {
        return capacityMicros / MICROS_PER_TOKEN;
    }

    /** Whether a request of this cost can ever pass: its cost fits in a full bucket. */
    public boolean costFits() {
        return costMicros <= capacityMicros;
    }

    /** Milliseconds an empty bucket takes to fill up (rounded up). */
    public long millisToFill() {
        return TokenBucketMath.ceilDiv(capacityMicros, refillMicrosPerMilli);
    }

    /**
     * One instance's share when the limit is split evenly among {@code instances} (the local
     * fallback of an instance that cannot reach Redis).
     *
     * <p>Error bound: capacity and rate are rounded down to a whole micro-token (per ms), so each
     * share is low by less than 10<sup>-6</sup> token of burst and 0.001 token/s of rate. Two
     * floors keep a share usable: the capacity is raised to the cost (a bucket that cannot hold one
     * request would reject forever), and the rate to 1 micro-token/ms. Where those floors apply,
     * the cluster as a whole may admit up to {@code instances × cost} in a burst and
     * {@code instances × 0.001} tokens/s, more than the rule.
     */
    public BucketLimits dividedAmong(int instances) {
        if (instances < 1) {
            throw new IllegalArgumentException("instances must be at least 1, was " + instances);
        }
        if (instances == 1) {
            return this;
        }
        long capacity = Math.max(capacityMicros / instances, Math.min(costMicros, capacityMicros));
        long rate = Math.max(refillMicrosPerMilli / instances, 1L);
        return new BucketLimits(capacity, rate, costMicros);
    }
}
