package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What every {@link BucketStore} must do. Subclasses say how to reach the store and how to make time
 * pass for a bucket without sleeping.
 *
 * <p>Stores on a real clock (Redis) keep running while a test runs, so their tests use slow refill
 * rates and allow {@link #clockSlackMillis()} on durations; counts stay exact.
 */
public abstract class BucketStoreContract {

    private static final AtomicInteger TENANTS = new AtomicInteger();

    /** The store under test. */
    protected abstract BucketStore store();

    /** Makes {@code millis} pass for the bucket of {@code key} (and possibly for others). */
    protected abstract void advance(BucketKey key, long millis);

    /** How far durations reported by the store may fall short of the exact value. */
    protected long clockSlackMillis() {
        return 0;
    }

    protected static BucketKey freshKey() {
        return new BucketKey("tenant-" + TENANTS.incrementAndGet() + "-" + System.nanoTime(), "route");
    }

    protected Decision acquire(BucketKey key, BucketLimits limits) {
        return store().tryAcquire(key, limits).toCompletableFuture().join();
    }

    /** One token per second with the given burst: slow enough for the real clock not to matter. */
    protected static BucketLimits perSecond(long capacity) {
        return RateLimitRule.of(capacity, 1).limits();
    }

    @Test
    void newBucketStartsFull() {
        Decision d = acquire(freshKey(), perSecond(5));
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(4);
        assertThat(d.limit()).isEqualTo(5);
        assertThat(d.retryAfterMillis()).isZero();
    }

    @Test
    void allowsTheBurstThenRejects() {
        BucketKey key = freshKey();
        BucketLimits limits = perSecond(3);
        assertThat(acquire(key, limits).remaining()).isEqualTo(2);
        assertThat(acquire(key, limits).remaining()).isEqualTo(1);
        Decision last = acquire(key, limits);
        assertThat(last.allowed()).isTrue();
        assertThat(last.remaining()).isZero();
        assertThat(last.retryAfterMillis()).isBetween(1000 - clockSlackMillis(), 1000L);

        Decision rejected = acquire(key, limits);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.remaining()).isZero();
        assertThat(rejected.retryAfterMillis()).isBetween(1000 - clockSlackMillis(), 1000L);
        assertThat(rejected.resetAfterMillis()).isBetween(3000 - clockSlackMillis(), 3000L);
    }

    @Test
    void refillsOverTime() {
        BucketKey key = freshKey();
        BucketLimits limits = perSecond(2);
        acquire(key, limits);
        acquire(key, limits);
        assertThat(acquire(key, limits).allowed()).isFalse();

        advance(key, 1000);
        Decision d = acquire(key, limits);
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isZero();
        assertThat(acquire(key, limits).allowed()).isFalse();
    }

    @Test
    void rejectedRequestsTakeNothing() {
        BucketKey key = freshKey();
        BucketLimits limits = perSecond(1);
        acquire(key, limits);
        for (int i = 0; i < 10; i++) {
            assertThat(acquire(key, limits).allowed()).isFalse();
        }
        advance(key, 1000);
        assertThat(acquire(key, limits).allowed()).isTrue();
    }

    @Test
    void refillStopsAtCapacity() {
        BucketKey key = freshKey();
        BucketLimits limits = perSecond(3);
        acquire(key, limits);
        advance(key, 3_600_000);
        Decision d = acquire(key, limits);
        assertThat(d.remaining()).isEqualTo(2);
        assertThat(acquire(key, limits).allowed()).isTrue();
        assertThat(acquire(key, limits).allowed()).isTrue();
        assertThat(acquire(key, limits).allowed()).isFalse();
    }

    @Test
    void requestsMayCostSeveralTokens() {
        BucketKey key = freshKey();
        BucketLimits costThree = new RateLimitRule(5, 1, 3).limits();
        Decision first = acquire(key, costThree);
        assertThat(first.allowed()).isTrue();
        assertThat(first.remaining()).isEqualTo(2);
        assertThat(first.retryAfterMillis()).isBetween(1000 - clockSlackMillis(), 1000L);

        Decision second = acquire(key, costThree);
        assertThat(second.allowed()).isFalse();
        assertThat(second.remaining()).isEqualTo(2);
        assertThat(second.retryAfterMillis()).isBetween(1000 - clockSlackMillis(), 1000L);
    }

    @Test
    void costAboveCapacityNeverPassesAndTakesNothing() {
        BucketKey key = freshKey();
        BucketLimits tooExpensive = new BucketLimits(2_000_000, 1_000, 3_000_000);
        Decision d = acquire(key, tooExpensive);
        assertThat(d.allowed()).isFalse();
        assertThat(d.retryAfterMillis()).isEqualTo(Decision.NEVER);
        assertThat(d.remaining()).isEqualTo(2);

        advance(key, 3_600_000);
        assertThat(acquire(key, tooExpensive).allowed()).isFalse();
        assertThat(acquire(key, perSecond(2)).remaining()).isEqualTo(1);
    }

    @Test
    void fractionalRatesRefillExactly() {
        BucketKey key = freshKey();
        BucketLimits halfPerSecond = RateLimitRule.of(1, 0.5).limits();
        assertThat(acquire(key, halfPerSecond).allowed()).isTrue();

        advance(key, 1000);
        Decision halfway = acquire(key, halfPerSecond);
        assertThat(halfway.allowed()).isFalse();
        assertThat(halfway.retryAfterMillis()).isBetween(1000 - clockSlackMillis(), 1000L);

        advance(key, 1000);
        assertThat(acquire(key, halfPerSecond).allowed()).isTrue();
    }

    @Test
    void loweredCapacityTakesEffectAtOnce() {
        BucketKey key = freshKey();
        acquire(key, perSecond(10));
        Decision d = acquire(key, perSecond(2));
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(1);
        assertThat(d.limit()).isEqualTo(2);
    }

    @Test
    void bucketsOfDifferentTenantsAndRoutesAreIndependent() {
        BucketKey key = freshKey();
        BucketKey otherRoute = new BucketKey(key.tenant(), "other-route");
        BucketKey otherTenant = new BucketKey(key.tenant() + "x", key.route());
        BucketLimits limits = perSecond(1);
        acquire(key, limits);
        assertThat(acquire(key, limits).allowed()).isFalse();
        assertThat(acquire(otherRoute, limits).allowed()).isTrue();
        assertThat(acquire(otherTenant, limits).allowed()).isTrue();
    }

    @Test
    void concurrentAcquisitionsNeverExceedTheCapacity() throws Exception {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(50, 0.001).limits();
        int threads = 8;
        int perThread = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    int allowed = 0;
                    for (int i = 0; i < perThread; i++) {
                        if (acquire(key, limits).allowed()) {
                            allowed++;
                        }
                    }
                    return allowed;
                }));
            }
            start.countDown();
            int allowed = 0;
            for (Future<Integer> f : results) {
                allowed += f.get(30, TimeUnit.SECONDS);
            }
            assertThat(allowed).isEqualTo(50);
        } finally {
            pool.shutdownNow();
        }
    }
}
