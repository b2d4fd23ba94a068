package dev.tollgate.core;

import java.util.concurrent.CompletionStage;

/**
 * Where buckets live: in this JVM ({@link LocalBucketStore}) or in Redis. Every implementation
 * passes the same contract test suite.
 */
public interface BucketStore {

    /**
     * Refills the bucket of {@code key} up to now, then takes {@code limits.costMicros()} from it if
     * it holds that much. A bucket never seen before (or expired) starts full. Atomic per key: two
     * concurrent calls never both take the last tokens.
     */
    CompletionStage<Decision> tryAcquire(BucketKey key, BucketLimits limits);
}
