package dev.tollgate.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * The limiter an instance falls back to when it cannot reach Redis ({@code docs/architecture.md}, "Local limiter"): each instance
 * enforces {@code 1/N} of every rule in its own memory, N being the number of live gateway
 * instances, so the cluster as a whole still admits about the rule's rate.
 *
 * <p>Error bound: exact when traffic is spread evenly over the N instances and N is right. With
 * uneven spreading the cluster admits less than the rule (an instance cannot borrow an idle one's
 * share); with a stale N it admits up to {@code trueN / N} times the rule. The rounding of each
 * share is bounded in {@link BucketLimits#dividedAmong(int)}.
 *
 * <p>While Redis decides, {@link #recordAdmitted} takes each admitted request's cost from the same
 * local share, so the local buckets follow what this instance has let through. Without that, every
 * switch to the fallback would start from full local buckets and hand the cluster one more burst (up
 * to the capacity) on top of what Redis had just admitted, once per switch if the breaker flaps.
 * With it, a switch continues from this instance's recent use: no extra burst when traffic is spread
 * evenly, and at most the shares of the instances that had been idle (below {@code (N − 1)/N} of
 * the capacity) otherwise.
 *
 * <p>The other way round, what an instance admits on its own is kept per key
 * ({@link #takeUnreported}) so that the shared bucket can be charged for it when Redis answers
 * again; otherwise Redis, untouched while the fallback decided, would come back with a bucket
 * refilled by the whole outage and admit that burst on top of what the instances admitted.
 */
public final class LocalFallbackLimiter {

    private final LocalBucketStore store;
    private final IntSupplier instanceCount;
    private final ConcurrentHashMap<BucketKey, Long> unreported = new ConcurrentHashMap<>();

    /** A limiter for a fixed number of instances. */
    public LocalFallbackLimiter(int instanceCount, MonotonicClock clock) {
        this(fixed(instanceCount), clock);
    }

    /** A limiter for a number of instances that may change (read on every decision). */
    public LocalFallbackLimiter(IntSupplier instanceCount, MonotonicClock clock) {
        this.store = new LocalBucketStore(clock);
        this.instanceCount = instanceCount;
    }

    /** Decides a request on this instance's share of {@code limits}, {@code key} being the whole bucket. */
    public Decision tryAcquire(BucketKey key, BucketLimits limits) {
        Decision decision = store.acquire(key, share(limits));
        if (decision.allowed()) {
            // Owed to the shared bucket, at most a full bucket's worth: more could not matter.
            unreported.merge(key, limits.costMicros(), (a, b) -> Math.min(limits.capacityMicros(), a + b));
        }
        return decision;
    }

    /**
     * Whether this instance admitted requests on its own that no Redis bucket has been charged with
     * yet (any key; one emptiness check). While it has, requests go to Redis one at a time, with no
     * token lease: a lease taken first would come from a bucket that lacks these admissions, and the
     * charge that follows cannot take the bucket below empty, so the lease would be admitted on top.
     */
    public boolean owesRedis() {
        return !unreported.isEmpty();
    }

    /**
     * Takes and returns what this instance admitted for {@code key} on its own since the last call
     * (micro-tokens, at most a capacity), for the shared bucket to be charged once it answers again.
     */
    public long takeUnreported(BucketKey key) {
        if (unreported.isEmpty()) {
            return 0; // the usual case, while Redis decides: no map lookup
        }
        Long micros = unreported.remove(key);
        return micros == null ? 0 : micros;
    }

    /**
     * Takes the cost of a request admitted elsewhere (by Redis, or from a lease) from this
     * instance's share, or all that is left of it; decides nothing, and never takes a bucket below
     * empty.
     */
    public void recordAdmitted(BucketKey key, BucketLimits limits) {
        BucketLimits share = share(limits);
        store.spend(key, share, share.costMicros());
    }

    /**
     * Drops buckets that are full (see {@link LocalBucketStore#evictFullBuckets()}), and with them
     * what their keys still owe the shared bucket: a full local bucket means this instance admitted
     * nothing of the key on its own for a whole fill time, after which an exact bucket would be full
     * again too. This also keeps the owed amounts of keys never seen again from piling up.
     */
    public int evictFullBuckets() {
        int evicted = store.evictFullBuckets();
        if (!unreported.isEmpty()) {
            unreported.keySet().removeIf(key -> !store.holds(key));
        }
        return evicted;
    }

    /** This instance's share of {@code limits}, N read now. */
    private BucketLimits share(BucketLimits limits) {
        return limits.dividedAmong(Math.max(1, instanceCount.getAsInt()));
    }

    private static IntSupplier fixed(int instanceCount) {
        if (instanceCount < 1) {
            throw new IllegalArgumentException("instanceCount must be at least 1, was " + instanceCount);
        }
        return () -> instanceCount;
    }
}
