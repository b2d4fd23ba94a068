package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The lease-source contract for the in-memory buckets, on a manual clock. */
class LocalBucketStoreLeaseTest extends TokenLeaseSourceContract {

    private final ManualClock clock = new ManualClock(42_000_000_000L);
    private final LocalBucketStore store = new LocalBucketStore(clock);

    @Override
    protected TokenLeaseSource source() {
        return store;
    }

    @Override
    protected BucketStore store() {
        return store;
    }

    @Override
    protected void advance(BucketKey key, long millis) {
        clock.advanceMillis(millis);
    }

    @Test
    void aGiveBackToAMissingBucketCreatesNone() {
        BucketKey key = freshKey();
        giveBack(key, RateLimitRule.of(10, 1).limits(), 3);
        assertThat(store.holds(key)).isFalse();
    }

    /**
     * The twin of the Redis key's expiry: a bucket drained under a slow new rule is not full two
     * seconds later, even if tokens come back under the old fast rule meanwhile, so it must not be
     * evicted (a missing bucket is a full one).
     */
    @Test
    void aGiveBackUnderOldLimitsDoesNotMakeTheBucketEvictable() {
        BucketKey key = freshKey();
        BucketLimits before = RateLimitRule.of(100, 100).limits();
        BucketLimits after = RateLimitRule.of(100, 0.001).limits();
        lease(key, before, 9);
        admittedUntilRejected(key, after);
        clock.advanceMillis(10);
        giveBack(key, before, 9);
        clock.advanceMillis(2_000);
        assertThat(store.evictFullBuckets()).isZero();
        assertThat(admittedUntilRejected(key, after)).isEqualTo(9);
    }
}
