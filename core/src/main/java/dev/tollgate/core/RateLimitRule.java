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
 * @param regionSharePpm  the part of the limit this region enforces, in millionths
 *                        ({@value #WHOLE_SHARE_PPM} = the whole limit: a single region); it scales
 *                        {@link #limits()} only, see there for the rounding. Written by
 *                        {@link #inRegion(int)}, never by users: {@code capacity}, {@code refillPerSecond}
 *                        and {@code cost} stay the rule as written
 */
public record RateLimitRule(long capacity, double refillPerSecond, long cost, boolean shadow, int shards,
                            int regionSharePpm) {

    public static final long MAX_CAPACITY = 1_000_000_000L;
    public static final double MAX_REFILL_PER_SECOND = 1_000_000_000d;
    /** Most sub-buckets a rule may be split into. */
    public static final int MAX_SHARDS = 64;
    /** {@link #regionSharePpm()} of a rule enforced whole, in one region. */
    public static final int WHOLE_SHARE_PPM = 1_000_000;

    public RateLimitRule {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new InvalidRuleException("capacity", "must be between 1 and " + MAX_CAPACITY + ", was " + capacity);
        }
        if (!(refillPerSecond > 0) || refillPerSecond > MAX_REFILL_PER_SECOND) {
            throw new InvalidRuleException("refillPerSecond", "must be > 0 and <= 1e9, was " + refillPerSecond);
        }
        if (BigDecimal.valueOf(refillPerSecond).stripTrailingZeros().scale() > 3) {
            throw new InvalidRuleException("refillPerSecond",
                    "has at most three decimals (0.001 token/s), was " + refillPerSecond);
        }
        if (cost < 1 || cost > capacity) {
            throw new InvalidRuleException("cost", "must be between 1 and the capacity " + capacity + ", was " + cost);
        }
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new InvalidRuleException("shards", "must be between 1 and " + MAX_SHARDS + ", was " + shards);
        }
        if (regionSharePpm < 1 || regionSharePpm > WHOLE_SHARE_PPM) {
            throw new InvalidRuleException("regionSharePpm",
                    "must be between 1 and " + WHOLE_SHARE_PPM + ", was " + regionSharePpm);
        }
    }

    /** A rule as written, enforced whole. */
    public RateLimitRule(long capacity, double refillPerSecond, long cost, boolean shadow, int shards) {
        this(capacity, refillPerSecond, cost, shadow, shards, WHOLE_SHARE_PPM);
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

    /**
     * The same rule with {@code sharePpm} millionths of its limit enforced here: what one region
     * enforces in its own buckets when the limit is split across regions.
     */
    public RateLimitRule inRegion(int sharePpm) {
        return sharePpm == regionSharePpm ? this
                : new RateLimitRule(capacity, refillPerSecond, cost, shadow, shards, sharePpm);
    }

    /**
     * The limits this rule's buckets enforce, in the arithmetic's integer units. Enforced whole,
     * they are exact. With a region's share {@code s = regionSharePpm / 10^6}:
     * <ul>
     *   <li>capacity {@code C × s}: exact, since {@code C} tokens are {@code C × 10^6} micro-tokens,
     *       and {@code C × 10^6 × s = C × regionSharePpm};</li>
     *   <li>rate {@code R × s}, rounded down to a micro-token per ms: low by less than 0.001 token/s
     *       per region, so the regions together never refill faster than {@code R};</li>
     *   <li>two floors, as in {@link BucketLimits#dividedAmong}: the capacity is raised to the cost
     *       where {@code C × s < cost} (a bucket that cannot hold one request would reject forever),
     *       and the rate to 0.001 token/s where {@code R × s} is below that. Only where they apply can
     *       the regions together exceed the rule: by at most one request's cost of burst and 0.001
     *       token/s per such region.</li>
     * </ul>
     */
    public BucketLimits limits() {
        BucketLimits whole = BucketLimits.of(capacity, refillPerSecond, cost);
        if (regionSharePpm == WHOLE_SHARE_PPM) {
            return whole;
        }
        // capacity ≤ 1e9 and rate ≤ 1e12: neither product below can overflow a long.
        long regionalCapacity = Math.max(capacity * regionSharePpm, whole.costMicros());
        long regionalRate = Math.max(1L, whole.refillMicrosPerMilli() * regionSharePpm / WHOLE_SHARE_PPM);
        return new BucketLimits(regionalCapacity, regionalRate, whole.costMicros());
    }
}
