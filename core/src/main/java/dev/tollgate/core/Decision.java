package dev.tollgate.core;

/**
 * The outcome of one acquisition.
 *
 * @param allowed          whether the request may pass (its tokens were taken)
 * @param remaining        whole tokens left in the bucket after this decision (rounded down)
 * @param limit            the bucket's capacity in whole tokens
 * @param retryAfterMillis milliseconds from now until the bucket holds enough tokens for a request
 *                         of the same cost (0 when it already does), or {@link #NEVER} when the
 *                         cost exceeds the capacity
 * @param resetAfterMillis milliseconds from now until the bucket is full again
 * @param servedFromLease  whether it was made from tokens this instance holds on lease, without a
 *                         remote call for this request (see {@link LeasingBucketStore})
 */
public record Decision(boolean allowed, long remaining, long limit, long retryAfterMillis,
                       long resetAfterMillis, boolean servedFromLease) {

    /** {@link #retryAfterMillis()} of a request that can never pass. */
    public static final long NEVER = -1L;

    /** A decision made by the bucket itself (not from a lease). */
    public Decision(boolean allowed, long remaining, long limit, long retryAfterMillis, long resetAfterMillis) {
        this(allowed, remaining, limit, retryAfterMillis, resetAfterMillis, false);
    }

    /** The same decision, marked as made from a lease. */
    public Decision fromLease() {
        return new Decision(allowed, remaining, limit, retryAfterMillis, resetAfterMillis, true);
    }

    /** Whole seconds until a retry can pass, rounded up; {@link #NEVER} if it never can. */
    public long retryAfterSeconds() {
        return retryAfterMillis == NEVER ? NEVER : TokenBucketMath.ceilDiv(retryAfterMillis, 1000L);
    }
}
