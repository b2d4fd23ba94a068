package dev.tollgate.core;

import java.util.concurrent.CompletionStage;

/**
 * A bucket store that can hand out batches of tokens (leases) and take unspent ones back, for
 * {@link LeasingBucketStore}. It works on the same buckets as the store's
 * {@link BucketStore#tryAcquire}: leasing and per-request acquisition of one key can be mixed freely.
 */
public interface TokenLeaseSource {

    /**
     * Refills the bucket of {@code key} up to now, then takes as many whole requests' worth of tokens
     * ({@code limits.costMicros()} each) as it holds, up to {@code maxMicros}: a partial grant when
     * the bucket holds less, none when it holds less than one request. Atomic per key.
     */
    CompletionStage<LeaseGrant> takeUpTo(BucketKey key, BucketLimits limits, long maxMicros);

    /**
     * Adds {@code micros} back to the bucket of {@code key} <em>as last written</em>, without
     * refilling it: the bucket's tokens become {@code min(capacity, tokens + micros)} as of its last
     * refill time, which stays as it is (and so does a Redis key's expiry). A bucket holding
     * {@code limits.capacityMicros()} or more (full, or under a capacity raised since) stays as it is,
     * and so does a missing one, which is full. Only the capacity of {@code limits} is used.
     *
     * <p>Why no refill. A bucket last written with {@code s} micro-tokens at {@code ts} is read at a
     * later {@code t}, under capacity {@code C} and rate {@code r}, as
     * {@code min(C, s + r × (t − ts))}. While the rule stands, refilling to {@code now}, adding
     * {@code g} and reading at {@code t ≥ now} gives {@code min(C, min(C, s + r × (now − ts)) + g +
     * r × (t − now))}, and adding {@code g} at {@code ts} gives {@code min(C, s + g + r × (t − ts))}:
     * the same, since {@code min(C, min(C, x) + y) = min(C, x + y)} for {@code y ≥ 0}. After a rule
     * change, refilling would apply the rate passed here (the lease's, perhaps the old rule's) to a
     * time other instances may have spent under the new rule: tokens minted if the rate fell, lost if
     * it rose. Without it, whatever rule is in force, a give-back raises what any later request sees
     * by at most {@code micros}, never above that request's capacity; refill only ever happens at
     * the rate of a request that reads the bucket.
     */
    CompletionStage<Void> giveBack(BucketKey key, BucketLimits limits, long micros);
}
