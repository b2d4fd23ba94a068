package dev.tollgate.core;

/**
 * One bucket held in this JVM. Not thread-safe by itself: {@link LocalBucketStore} serialises the
 * calls for a key.
 */
final class LocalTokenBucket {

    private long tokens;
    private long lastRefillMillis;
    private BucketLimits limits;

    LocalTokenBucket(BucketLimits limits, long nowMillis) {
        this.tokens = limits.capacityMicros();
        this.lastRefillMillis = nowMillis;
        this.limits = limits;
    }

    Decision tryTake(BucketLimits current, long nowMillis) {
        refillTo(current, nowMillis);
        boolean allowed = current.costFits() && tokens >= current.costMicros();
        if (allowed) {
            tokens -= current.costMicros();
        }
        return TokenBucketMath.decision(allowed, tokens, current);
    }

    /** Takes {@code micros}, or all it holds if that is less; decides nothing. */
    void spend(BucketLimits current, long nowMillis, long micros) {
        refillTo(current, nowMillis);
        tokens -= Math.min(tokens, micros);
    }

    /** Takes as many whole requests' cost as it holds, up to {@code maxMicros}. */
    LeaseGrant takeUpTo(BucketLimits current, long nowMillis, long maxMicros) {
        refillTo(current, nowMillis);
        long granted = Math.min(maxMicros, tokens) / current.costMicros() * current.costMicros();
        tokens -= granted;
        return new LeaseGrant(granted, tokens, TokenBucketMath.millisUntil(tokens, maxMicros, current));
    }

    /** Adds {@code micros} back, never above the capacity. */
    void giveBack(BucketLimits current, long nowMillis, long micros) {
        refillTo(current, nowMillis);
        tokens = Math.min(current.capacityMicros(), tokens + micros);
    }

    /** Whether the bucket is full at {@code nowMillis}, and so no different from a new one. */
    boolean isFullAt(long nowMillis) {
        return TokenBucketMath.refill(tokens, nowMillis - lastRefillMillis, limits)
                >= limits.capacityMicros();
    }

    private void refillTo(BucketLimits current, long nowMillis) {
        // Limits change when a rule changes or the instance count does: keep what was earned,
        // but never more than the new capacity.
        limits = current;
        tokens = Math.min(tokens, current.capacityMicros());
        if (nowMillis > lastRefillMillis) {
            tokens = TokenBucketMath.refill(tokens, nowMillis - lastRefillMillis, current);
            lastRefillMillis = nowMillis;
        }
    }
}
