package dev.tollgate.core.limits;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.Decision;
import dev.tollgate.core.TokenBucketMath;

/**
 * What one limit said about a request.
 *
 * @param charge           the limit and what the request cost against it
 * @param admits           whether this limit had room for the request. For a shadow limit: whether it
 *                         would have admitted it (it never rejects)
 * @param remaining        what is left after the decision, in whole tokens (rounded down) or units
 *                         of the quota: less the cost only if the request was admitted and this limit
 *                         had room
 * @param limit            the capacity (whole tokens) or the quota
 * @param requestsLeft     how many more requests of this cost the limit would admit now (0 or more)
 * @param retryAfterMillis ms from now until the limit has room for a request of this cost (0 when it
 *                         has), {@link Decision#NEVER} when the cost exceeds the capacity or quota. For a
 *                         quota that is the end of the window, however far
 * @param resetAfterMillis ms from now until the bucket is full again, or the quota's window ends
 * @param window           the window the quota counted in (after a clock step back, possibly a later
 *                         one than now's); {@code null} for a token bucket
 */
public record LimitOutcome(LimitCharge charge, boolean admits, long remaining, long limit, long requestsLeft,
                           long retryAfterMillis, long resetAfterMillis, CalendarWindow window) {

    /**
     * A token bucket's outcome: it holds {@code tokens} micro-tokens from {@code lag} ms after now on
     * (the time the state written, or left, will be at), under {@code limits}.
     */
    public static LimitOutcome ofBucket(LimitCharge charge, boolean admits, long tokens, long lag,
                                        BucketLimits limits) {
        long cost = limits.costMicros();
        long retry;
        if (!limits.costFits()) {
            retry = Decision.NEVER;
        } else if (tokens >= cost) {
            retry = 0;
        } else {
            retry = lag + TokenBucketMath.ceilDiv(cost - tokens, limits.refillMicrosPerMilli());
        }
        long reset = lag + TokenBucketMath.millisUntil(tokens, limits.capacityMicros(), limits);
        return new LimitOutcome(charge, admits, tokens / BucketLimits.MICROS_PER_TOKEN, limits.capacityTokens(),
                tokens / cost, retry, reset, null);
    }

    /**
     * A calendar quota's outcome: {@code used} counted in {@code window} against {@code allowed}
     * (the quota, or this instance's share of it), at {@code now} (epoch ms).
     */
    public static LimitOutcome ofQuota(LimitCharge charge, boolean admits, long used, CalendarQuota quota,
                                       long allowed, CalendarWindow window, long now) {
        long left = Math.max(0, allowed - used); // a quota lowered below its count has none left
        long cost = charge.cost();
        long retry;
        if (cost > quota.quota()) {
            retry = Decision.NEVER;
        } else if (cost <= left) {
            retry = 0;
        } else {
            retry = window.millisToEnd(now);
        }
        return new LimitOutcome(charge, admits, left, allowed, left / cost, retry, window.millisToEnd(now), window);
    }

    public Limit limitDefinition() {
        return charge.limit();
    }

    public boolean shadow() {
        return charge.limit().shadow();
    }

    /** Whether this limit made the request fail: it had no room and is enforced. */
    public boolean rejects() {
        return !admits && !shadow();
    }
}
