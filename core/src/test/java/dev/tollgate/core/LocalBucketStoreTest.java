package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LocalBucketStoreTest extends BucketStoreContract {

    private final ManualClock clock = new ManualClock(123_456_789L);
    private final LocalBucketStore store = new LocalBucketStore(clock);

    @Override
    protected BucketStore store() {
        return store;
    }

    @Override
    protected void advance(BucketKey key, long millis) {
        clock.advanceMillis(millis);
    }

    @Test
    void aClockThatStandsStillRefillsNothing() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(2, 1_000_000).limits();
        store.acquire(key, limits);
        store.acquire(key, limits);
        for (int i = 0; i < 1000; i++) {
            assertThat(store.acquire(key, limits).allowed()).isFalse();
        }
        clock.advanceMillis(1);
        assertThat(store.acquire(key, limits).remaining()).isEqualTo(1);
    }

    @Test
    void refillIsExactToTheMillisecond() {
        BucketKey key = freshKey();
        BucketLimits tenPerSecond = RateLimitRule.of(1, 10).limits();
        store.acquire(key, tenPerSecond);
        clock.advanceMillis(99);
        Decision early = store.acquire(key, tenPerSecond);
        assertThat(early.allowed()).isFalse();
        assertThat(early.retryAfterMillis()).isEqualTo(1);
        clock.advanceMillis(1);
        assertThat(store.acquire(key, tenPerSecond).allowed()).isTrue();
    }

    @Test
    void evictsOnlyFullBuckets() {
        BucketLimits limits = RateLimitRule.of(2, 1).limits();
        BucketKey drained = freshKey();
        BucketKey touched = freshKey();
        store.acquire(drained, limits);
        store.acquire(drained, limits);
        clock.advanceMillis(1000);
        store.acquire(touched, limits);

        clock.advanceMillis(999);
        assertThat(store.evictFullBuckets()).isZero();
        assertThat(store.size()).isEqualTo(2);

        clock.advanceMillis(1);
        assertThat(store.evictFullBuckets()).isEqualTo(2);
        assertThat(store.size()).isZero();
    }

    @Test
    void anEvictedBucketDecidesAsTheOldOneWould() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(3, 1).limits();
        store.acquire(key, limits);
        clock.advanceMillis(1000);
        store.evictFullBuckets();
        assertThat(store.acquire(key, limits).remaining()).isEqualTo(2);
    }
}
