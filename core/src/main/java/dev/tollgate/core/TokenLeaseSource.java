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
     * Refills the bucket of {@code key} up to now, then adds {@code micros} back, never above the
     * capacity. A bucket that is full (or missing, which is the same) stays as it is.
     */
    CompletionStage<Void> giveBack(BucketKey key, BucketLimits limits, long micros);
}
