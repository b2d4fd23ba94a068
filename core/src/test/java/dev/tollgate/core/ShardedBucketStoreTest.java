package dev.tollgate.core;

import static dev.tollgate.core.RandomizedCheck.between;
import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Sharded buckets over an in-memory store on a manual clock. */
class ShardedBucketStoreTest {

    private final ManualClock clock = new ManualClock(5_000_000_000L);
    private final LocalBucketStore local = new LocalBucketStore(clock);

    private static Decision acquire(BucketStore store, BucketKey key, BucketLimits limits) {
        return store.tryAcquire(key, limits).toCompletableFuture().join();
    }

    private static int admitted(BucketStore store, BucketKey key, BucketLimits limits, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            if (acquire(store, key, limits).allowed()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void withASecondChanceTwoShardsAdmitTheWholeBurstThenReject() {
        ShardedBucketStore store = new ShardedBucketStore(local, key -> 2, true);
        BucketKey key = new BucketKey("shop-a", "orders");
        BucketLimits limits = RateLimitRule.of(10, 2).limits();
        assertThat(admitted(store, key, limits, 10)).isEqualTo(10);
        Decision rejected = acquire(store, key, limits);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.limit()).isEqualTo(10);
        assertThat(rejected.retryAfterMillis()).isEqualTo(1000); // each shard refills 1 token/s

        clock.advanceMillis(1000);
        assertThat(admitted(store, key, limits, 10)).isEqualTo(2);
    }

    @Test
    void theShardsHoldTheRuleBetweenThemAndNeverMore() {
        forAll(100, random -> {
            int n = (int) between(random, 2, 16);
            long capacity = between(random, n, 500);
            long perSecond = between(random, n, 1000);
            BucketLimits limits = RateLimitRule.of(capacity, perSecond).limits();
            ShardedBucketStore store = new ShardedBucketStore(local, key -> n, random.nextBoolean());
            BucketKey key = new BucketKey("tenant-" + random.nextLong(), "route");
            // Enough random picks to drain every shard (a shard missed by all is ~(1 - 1/n)^(50 C)).
            int burst = admitted(store, key, limits, (int) (50 * capacity));
            assertThat(burst).isBetween((int) (capacity - n + 1), (int) capacity);
            clock.advanceMillis(3000);
            int refilled = admitted(store, key, limits, (int) (50 * Math.min(capacity, 3 * perSecond)));
            // Never more than the rule gave out: a shard's leftover fraction of a token counts.
            assertThat((long) burst + refilled).isLessThanOrEqualTo(capacity + 3 * perSecond);
            assertThat(refilled).isLessThanOrEqualTo((int) Math.min(capacity, 3 * perSecond) + n - 1);
            assertThat(refilled).isGreaterThanOrEqualTo((int) Math.min(capacity, 3 * perSecond) - n);
        });
    }

    @Test
    void shardsCanBeLeased() {
        LeasingBucketStore leasing = new LeasingBucketStore(local, local, new LeasePolicy(0, 100, 50, 0.5, 1000), clock);
        ShardedBucketStore store = new ShardedBucketStore(leasing, key -> 4, true);
        BucketKey key = new BucketKey("shop-d", "orders");
        BucketLimits limits = RateLimitRule.of(400, 100).limits();
        int admitted = 0;
        for (int ms = 0; ms < 2000; ms++) {
            admitted += admitted(store, key, limits, 3);
            clock.advanceMillis(1);
        }
        // Never more than the rule over the run (400 + 100/s × 1.999 s); leases hold back at most one
        // batch per shard: half a shard's capacity of 100, so 4 × 50.
        assertThat(admitted).isBetween(400 + 199 - 4 * 50, 400 + 199);
        // Batches start at one request and grow with each shard key's observed rate.
        assertThat(leasing.leaseCalls() + leasing.perRequestCalls()).isLessThan(admitted / 3);
    }

    @Test
    void remainingIsReportedForTheWholeRule() {
        ShardedBucketStore store = new ShardedBucketStore(local, key -> 4, false);
        Decision d = acquire(store, new BucketKey("shop-b", "orders"), RateLimitRule.of(100, 10).limits());
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(96); // 24 left in a shard of 25, times 4
        assertThat(d.limit()).isEqualTo(100);
    }

    @Test
    void oneShardIsTheWholeBucket() {
        ShardedBucketStore store = new ShardedBucketStore(local, key -> 1, true);
        BucketKey key = new BucketKey("shop-c", "orders");
        acquire(store, key, RateLimitRule.of(3, 1).limits());
        assertThat(acquire(local, key, RateLimitRule.of(3, 1).limits()).remaining()).isEqualTo(1);
    }

    @Test
    void aBadShardCountIsRefusedWithItsValue() {
        ShardedBucketStore store = new ShardedBucketStore(local, key -> 0, true);
        assertThatThrownBy(() -> store.tryAcquire(new BucketKey("t", "r"), RateLimitRule.of(3, 1).limits()))
                .hasMessageContaining("was 0");
        assertThatThrownBy(() -> new BucketKey("t", "r", BucketKey.MAX_SHARDS)).hasMessageContaining("1024");
        assertThatThrownBy(() -> new BucketKey("t", "r", 3).shard(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shardKeysAreDistinctFromEachOtherAndFromTheWholeBucket() {
        BucketKey whole = new BucketKey("shop-a", "orders");
        assertThat(whole.redisKey()).isEqualTo("rl:{shop-a}:orders");
        assertThat(whole.shard(0).redisKey()).isEqualTo("rl:{shop-a:0}:orders");
        assertThat(whole.shard(11).redisKey()).isEqualTo("rl:{shop-a:11}:orders");
        assertThat(new BucketKey("shop-a:0", "orders").redisKey()).isEqualTo("rl:{shop-a%3A0}:orders");
    }
}
