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

    /** The sharded store as a plain store, for a rule split {@code n} ways. */
    private static BucketStore sharded(ShardedBucketStore store, int n) {
        return (key, limits) -> store.tryAcquire(new BucketRequest(key, limits, n));
    }

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
        BucketStore store = sharded(new ShardedBucketStore(local, true), 2);
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
            BucketStore store = sharded(new ShardedBucketStore(local, random.nextBoolean()), n);
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

    /**
     * 4 shards of 100 @ 10/s (25 @ 2.5/s each: a token every 400 ms), no second chance. Shard 0 is
     * drained at 0 ms, shard 1 at 300 ms; a request then lands on shard 0, 100 ms short of a token.
     * Shard 1 needs 400 ms: a retry after 100 ms that lands there would be rejected again.
     */
    @Test
    void retryAfterIsLongEnoughForWhicheverShardTheRetryLandsOn() {
        java.util.ArrayDeque<Integer> picks = new java.util.ArrayDeque<>();
        BucketStore store = sharded(new ShardedBucketStore(local, false, bound -> picks.remove()), 4);
        BucketKey key = new BucketKey("shop-e", "orders");
        BucketLimits limits = RateLimitRule.of(100, 10).limits();
        for (int i = 0; i < 25; i++) {
            picks.add(0);
            assertThat(acquire(store, key, limits).allowed()).isTrue();
        }
        clock.advanceMillis(300);
        for (int i = 0; i < 25; i++) {
            picks.add(1);
            assertThat(acquire(store, key, limits).allowed()).isTrue();
        }
        picks.add(0);
        Decision rejected = acquire(store, key, limits);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfterMillis()).isEqualTo(400);

        clock.advanceMillis(rejected.retryAfterMillis());
        picks.add(1);
        assertThat(acquire(store, key, limits).allowed()).isTrue();
    }

    /**
     * Random rules, shard counts, loads and shard choices, with and without the second chance: at the
     * first rejection, the advertised wait is honoured by a retry of the same cost whichever shards
     * it tries (each choice replayed from the same history), and it exceeds the true wait (the
     * shortest that every choice honours, from the shards' actual contents) by at most one share's
     * refill of the cost.
     */
    @Test
    void theAdvertisedWaitIsHonouredByEveryShardChoiceAndNoLongerThanNeeded() {
        forAll(500, random -> {
            long seed = random.nextLong();
            Scenario rejection = Scenario.untilRejected(seed);
            if (rejection == null) {
                return; // the history never got rejected: nothing to check
            }
            long wait = rejection.rejected.retryAfterMillis();
            long fromEmpty = TokenBucketMath.ceilDiv(rejection.share.costMicros(),
                    rejection.share.refillMicrosPerMilli());
            long trueWait = rejection.trueWait();
            String what = rejection + ", advertised " + wait + " ms, true " + trueWait + " ms";
            assertThat(wait).as(what).isBetween(trueWait, Math.min(fromEmpty, trueWait + fromEmpty));
            int n = rejection.n;
            for (int first = 0; first < n; first++) {
                for (int other = 0; other < (rejection.secondChance ? n - 1 : 1); other++) {
                    Scenario retry = Scenario.untilRejected(seed);
                    retry.clock.advanceMillis(wait);
                    retry.picks.add(first);
                    retry.picks.add(other);
                    Decision d = acquire(retry.store, retry.key, retry.limits);
                    assertThat(d.allowed()).as("%s, retry on shard %d then %d-th other", what, first, other)
                            .isTrue();
                }
            }
            if (n == 2 && rejection.secondChance) {
                assertThat(wait).as("both shards were tried: exact").isEqualTo(trueWait);
            }
        });
    }

    /** A random history on a fresh store, up to its first rejection; replays the same for a seed. */
    private static final class Scenario {
        final ManualClock clock = new ManualClock(0);
        final LocalBucketStore shards = new LocalBucketStore(clock);
        final java.util.ArrayDeque<Integer> picks = new java.util.ArrayDeque<>();
        final java.util.SplittableRandom random;
        final int n;
        final boolean secondChance;
        final BucketLimits limits;
        final BucketLimits share;
        final BucketKey key = new BucketKey("tenant", "route");
        final BucketStore store;
        Decision rejected;

        private Scenario(long seed) {
            random = new java.util.SplittableRandom(seed);
            n = (int) between(random, 2, 8);
            secondChance = random.nextBoolean();
            long cost = between(random, 1, 3);
            limits = new RateLimitRule(between(random, cost, 60), between(random, 1, 200) / 10.0, cost).limits();
            share = limits.dividedAmong(n);
            store = sharded(new ShardedBucketStore(shards, secondChance,
                    bound -> picks.isEmpty() ? random.nextInt(bound) : picks.remove() % bound), n);
        }

        static Scenario untilRejected(long seed) {
            Scenario s = new Scenario(seed);
            long maxStep = 2 * TokenBucketMath.ceilDiv(s.share.costMicros(), s.share.refillMicrosPerMilli());
            for (int step = 0; step < 2000; step++) {
                if (s.random.nextInt(4) == 0) {
                    s.clock.advanceMillis(between(s.random, 0, maxStep));
                    continue;
                }
                Decision d = acquire(s.store, s.key, s.limits);
                if (!d.allowed()) {
                    s.rejected = d;
                    return s;
                }
            }
            return null;
        }

        /** The shortest wait after which fewer shards lack the cost than a request tries. */
        long trueWait() {
            long[] waits = new long[n];
            for (int i = 0; i < n; i++) {
                long tokens = shards.takeUpTo(key.shard(i), share, 0).toCompletableFuture().join().tokensLeftMicros();
                waits[i] = TokenBucketMath.millisUntil(tokens, share.costMicros(), share);
            }
            java.util.Arrays.sort(waits);
            return waits[n - (secondChance ? 2 : 1)];
        }

        @Override
        public String toString() {
            return n + " shards of " + share + (secondChance ? ", second chance" : "");
        }
    }

    @Test
    void shardsCanBeLeased() {
        LeasingBucketStore leasing = new LeasingBucketStore(local, local, new LeasePolicy(0, 100, 50, 0.5, 1000), clock);
        BucketStore store = sharded(new ShardedBucketStore(leasing, true), 4);
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
        BucketStore store = sharded(new ShardedBucketStore(local, false), 4);
        Decision d = acquire(store, new BucketKey("shop-b", "orders"), RateLimitRule.of(100, 10).limits());
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(96); // 24 left in a shard of 25, times 4
        assertThat(d.limit()).isEqualTo(100);
    }

    @Test
    void oneShardIsTheWholeBucket() {
        BucketStore store = sharded(new ShardedBucketStore(local, true), 1);
        BucketKey key = new BucketKey("shop-c", "orders");
        acquire(store, key, RateLimitRule.of(3, 1).limits());
        assertThat(acquire(local, key, RateLimitRule.of(3, 1).limits()).remaining()).isEqualTo(1);
    }

    @Test
    void aBadShardCountIsRefusedWithItsValue() {
        assertThatThrownBy(() -> new BucketRequest(new BucketKey("t", "r"), RateLimitRule.of(3, 1).limits(), 0))
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
