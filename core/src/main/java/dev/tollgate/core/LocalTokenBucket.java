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

    /**
     * Adds {@code micros} back to the bucket as last written, without refilling: up to
     * {@code capacityMicros}, and never lowering a bucket that holds more (a raised capacity).
     * The time of the last refill and the limits it was made under stay as they are, so the next
     * request refills from then at its own rate; {@code token_return.lua} does the same in Redis.
     * See {@link TokenLeaseSource#giveBack} for why this is what refilling first would give when
     * the rate did not change, and does not depend on the rate when it did.
     */
    void giveBack(long capacityMicros, long micros) {
        if (tokens < capacityMicros) {
            tokens = Math.min(capacityMicros, tokens + micros);
        }
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
