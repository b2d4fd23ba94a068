package dev.tollgate.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Buckets held in this JVM's memory, timed by an injected {@link MonotonicClock}.
 *
 * <p>It can also hand out leases ({@link TokenLeaseSource}) from the same buckets, which makes it
 * the shared store of in-memory simulations of several {@link LeasingBucketStore} instances.
 *
 * <p>A full bucket is indistinguishable from a missing one, so {@link #evictFullBuckets()} can drop
 * it to bound memory without changing any decision.
 */
public final class LocalBucketStore implements BucketStore, TokenLeaseSource, BucketCharges {

    private final ConcurrentHashMap<BucketKey, LocalTokenBucket> buckets = new ConcurrentHashMap<>();
    private final MonotonicClock clock;

    public LocalBucketStore(MonotonicClock clock) {
        this.clock = clock;
    }

    @Override
    public CompletionStage<Decision> tryAcquire(BucketKey key, BucketLimits limits) {
        return CompletableFuture.completedFuture(acquire(key, limits));
    }

    /** {@link #tryAcquire} without the future: local decisions never wait. */
    public Decision acquire(BucketKey key, BucketLimits limits) {
        long now = clock.millis();
        Decision[] decision = new Decision[1];
        // compute() runs under the map's per-key lock: the take is atomic, and cannot race with
        // an eviction of the same bucket.
        buckets.compute(key, (k, bucket) -> {
            LocalTokenBucket b = bucket != null ? bucket : new LocalTokenBucket(limits, now);
            decision[0] = b.tryTake(limits, now);
            return b;
        });
        return decision[0];
    }

    /**
     * Takes {@code micros} from a bucket, or all it holds if that is less, without deciding
     * anything: for admissions decided elsewhere that this bucket should account for.
     */
    public void spend(BucketKey key, BucketLimits limits, long micros) {
        long now = clock.millis();
        buckets.compute(key, (k, bucket) -> {
            LocalTokenBucket b = bucket != null ? bucket : new LocalTokenBucket(limits, now);
            b.spend(limits, now, micros);
            return b;
        });
    }

    @Override
    public CompletionStage<LeaseGrant> takeUpTo(BucketKey key, BucketLimits limits, long maxMicros) {
        long now = clock.millis();
        LeaseGrant[] grant = new LeaseGrant[1];
        buckets.compute(key, (k, bucket) -> {
            LocalTokenBucket b = bucket != null ? bucket : new LocalTokenBucket(limits, now);
            grant[0] = b.takeUpTo(limits, now, maxMicros);
            return b;
        });
        return CompletableFuture.completedFuture(grant[0]);
    }

    @Override
    public CompletionStage<Void> giveBack(BucketKey key, BucketLimits limits, long micros) {
        // A missing bucket is a full one: nothing to add. No refill, so no clock: see giveBack's
        // contract for why the bucket's own last refill time is the one to add at.
        buckets.computeIfPresent(key, (k, b) -> {
            b.giveBack(limits.capacityMicros(), micros);
            return b;
        });
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> charge(BucketKey key, BucketLimits limits, long micros) {
        spend(key, limits, micros);
        return CompletableFuture.completedFuture(null);
    }

    /** Drops every bucket that is full by now; returns how many. */
    public int evictFullBuckets() {
        long now = clock.millis();
        int[] evicted = {0};
        buckets.keySet().forEach(key -> buckets.computeIfPresent(key, (k, b) -> {
            if (b.isFullAt(now)) {
                evicted[0]++;
                return null;
            }
            return b;
        }));
        return evicted[0];
    }

    /** Whether a bucket is held for {@code key} (a missing one is a full one). */
    public boolean holds(BucketKey key) {
        return buckets.containsKey(key);
    }

    /** Buckets currently held. */
    public int size() {
        return buckets.size();
    }
}
