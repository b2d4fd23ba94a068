package dev.tollgate.core;

/**
 * The token-bucket arithmetic, in integer micro-tokens and milliseconds (see {@link BucketLimits}).
 * Exact: no rounding except where a method says so. The Redis script
 * ({@code token_bucket.lua} in the redis module) implements the same steps server-side; change
 * both together.
 */
public final class TokenBucketMath {

    private TokenBucketMath() {
    }

    /**
     * Tokens after {@code elapsedMillis} of refill, never above the capacity. A non-positive
     * elapsed time (a clock that stood still) refills nothing.
     */
    public static long refill(long tokens, long elapsedMillis, BucketLimits limits) {
        long capacity = limits.capacityMicros();
        long missing = capacity - tokens;
        if (missing <= 0) {
            return capacity;
        }
        if (elapsedMillis <= 0) {
            return tokens;
        }
        // Compare before multiplying: a long idle time times the rate could overflow.
        if (elapsedMillis >= ceilDiv(missing, limits.refillMicrosPerMilli())) {
            return capacity;
        }
        return tokens + elapsedMillis * limits.refillMicrosPerMilli();
    }

    /** Milliseconds until the bucket holds {@code needed} micro-tokens (rounded up); 0 if it does. */
    public static long millisUntil(long tokens, long needed, BucketLimits limits) {
        return needed <= tokens ? 0L : ceilDiv(needed - tokens, limits.refillMicrosPerMilli());
    }

    /** The decision reported for a bucket left holding {@code tokensAfter} micro-tokens. */
    public static Decision decision(boolean allowed, long tokensAfter, BucketLimits limits) {
        long retryAfter = limits.costFits()
                ? millisUntil(tokensAfter, limits.costMicros(), limits)
                : Decision.NEVER;
        return new Decision(
                allowed,
                tokensAfter / BucketLimits.MICROS_PER_TOKEN,
                limits.capacityTokens(),
                retryAfter,
                millisUntil(tokensAfter, limits.capacityMicros(), limits));
    }

    /** {@code ceil(a / b)} for {@code a >= 0, b > 0}. */
    public static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
