package dev.tollgate.bench.jmh;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.Decision;
import dev.tollgate.core.LocalBucketStore;
import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A decision made in this JVM: the local bucket store ({@code compute} on a concurrent map plus
 * the integer refill) and the fallback limiter on top of it (which also builds the key and divides
 * the rule among instances). The rule is never exhausted, so every call takes the admit path,
 * the one that writes. The real monotonic clock is used, as in production.
 *
 * <p>A decision spent from a token lease already held is the other in-memory decision;
 * it is measured through the whole leasing store, on a real Redis lease source, by
 * {@link LeaseHitBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class LocalDecisionBenchmark {

    /** Distinct buckets in the "many keys" cases: more than fit in L1/L2, as with real tenants. */
    private static final int KEYS = 16_384;

    private final RateLimitRule rule = RateLimitRule.of(1_000_000_000L, 1_000_000_000d);
    private final BucketLimits limits = rule.limits();
    private LocalBucketStore store;
    private LocalFallbackLimiter fallback;
    private BucketKey hotKey;
    private BucketKey[] keys;
    private String[] tenants;
    private int next;

    @Setup
    public void setUp() {
        store = new LocalBucketStore(MonotonicClock.system());
        fallback = new LocalFallbackLimiter(3, MonotonicClock.system());
        hotKey = new BucketKey("tenant-hot", "create-order");
        keys = new BucketKey[KEYS];
        tenants = new String[KEYS];
        for (int i = 0; i < KEYS; i++) {
            tenants[i] = "tenant-" + i;
            keys[i] = new BucketKey(tenants[i], "create-order");
        }
    }

    @Benchmark
    public Decision localBucketStoreOneKey() {
        return store.acquire(hotKey, limits);
    }

    @Benchmark
    public Decision localBucketStoreManyKeys() {
        return store.acquire(keys[next++ & (KEYS - 1)], limits);
    }

    @Benchmark
    public Decision fallbackLimiterManyKeys() {
        return fallback.tryAcquire(keys[next++ & (KEYS - 1)], limits);
    }
}
