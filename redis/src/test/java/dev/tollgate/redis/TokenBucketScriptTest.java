package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.Decision;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Behaviour of the token-bucket script that only Redis has: atomicity, TTL, NOSCRIPT, corruption. */
class TokenBucketScriptTest {

    private static final AtomicInteger TENANTS = new AtomicInteger();

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;
    private static RedisBucketStore store;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect();
        redis = connection.sync();
        store = RedisBucketStore.on(connection);
    }

    @AfterAll
    static void stopRedis() {
        if (client != null) {
            client.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    private static BucketKey freshKey() {
        return new BucketKey("script-test-" + TENANTS.incrementAndGet(), "route");
    }

    private static Decision acquire(BucketKey key, BucketLimits limits) {
        return store.tryAcquire(key, limits).toCompletableFuture().join();
    }

    private static long redisNowMillis() {
        List<String> time = redis.time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    @Test
    void aThousandParallelAcquisitionsOverManyConnectionsAdmitExactlyTheCapacity() throws Exception {
        int capacity = 137;
        int requests = 1000;
        int connections = 16;
        int threads = 32;
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(capacity, 0.001).limits(); // one token per 1000 s
        List<StatefulRedisConnection<String, String>> pool = new ArrayList<>();
        List<RedisBucketStore> stores = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            StatefulRedisConnection<String, String> c = client.connect();
            pool.add(c);
            stores.add(RedisBucketStore.on(c));
        }
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger next = new AtomicInteger();
        try {
            List<Future<Integer>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(executor.submit(() -> {
                    go.await();
                    int admitted = 0;
                    int i;
                    while ((i = next.getAndIncrement()) < requests) {
                        RedisBucketStore s = stores.get(i % connections);
                        if (s.tryAcquire(key, limits).toCompletableFuture().join().allowed()) {
                            admitted++;
                        }
                    }
                    return admitted;
                }));
            }
            go.countDown();
            int admitted = 0;
            for (Future<Integer> f : futures) {
                admitted += f.get(60, TimeUnit.SECONDS);
            }
            assertThat(next.get()).isGreaterThanOrEqualTo(requests);
            assertThat(admitted).isEqualTo(capacity);
        } finally {
            executor.shutdownNow();
            pool.forEach(StatefulRedisConnection::close);
        }
    }

    @Test
    void everyBucketExpiresAfterTwiceItsFillTime() {
        BucketKey key = freshKey();
        acquire(key, RateLimitRule.of(2, 1).limits()); // fills in 2 s
        long ttl = redis.pttl(key.redisKey());
        assertThat(ttl).isBetween(3_000L, 4_000L);
    }

    /**
     * The key's expiry is set again only when the one in place (remembered in {@code xp}) could come
     * before the bucket is full: a key written often costs a PEXPIRE about once per fill time. To see
     * whether an admission re-armed it, the test shortens the key's TTL by hand (below what the
     * script would set, above the time to fill) and looks whether it comes back.
     */
    @Test
    void anAdmissionRearmsTheExpiryOnlyWhenTheBucketCouldOutliveIt() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(100, 10).limits(); // fills in 10 s; expiry 20 s
        acquire(key, limits);
        long xp = Long.parseLong(redis.hget(key.redisKey(), "xp"));
        assertThat(xp - redisNowMillis()).isBetween(19_000L, 20_000L);
        assertThat(redis.pttl(key.redisKey())).isBetween(19_000L, 20_000L);

        // Full again at most 10 s from now, the expiry 20 s away: nothing to re-arm.
        redis.pexpire(key.redisKey(), 15_000);
        acquire(key, limits);
        assertThat(redis.pttl(key.redisKey())).isBetween(14_000L, 15_000L);
        assertThat(redis.hget(key.redisKey(), "xp")).isEqualTo(Long.toString(xp));

        // Three tokens taken: full again in 300 ms. A remembered expiry 100 ms away comes before
        // that: re-armed (the key's real TTL is left longer, so that only the script can shorten it).
        redis.hset(key.redisKey(), "xp", Long.toString(redisNowMillis() + 100));
        redis.pexpire(key.redisKey(), 5_000);
        acquire(key, limits);
        assertThat(redis.pttl(key.redisKey())).isBetween(19_000L, 20_000L);
        assertThat(Long.parseLong(redis.hget(key.redisKey(), "xp")) - redisNowMillis()).isBetween(19_000L, 20_000L);
    }

    /**
     * The property the expiry exists for, under any pace of requests: after every write the key
     * outlives the time its bucket takes to be full again (so that its expiry changes no decision).
     * Time is moved by hand: the stored timestamp, the remembered expiry and the key's TTL all move
     * back by the same amount, as they would if that much time had passed.
     */
    @Test
    void afterEveryAdmissionTheKeyOutlivesTheTimeItsBucketTakesToFill() {
        Random random = new Random(42);
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(50, 5).limits(); // fills in 10 s; expiry 20 s
        int rearmed = 0;
        for (int step = 0; step < 300; step++) {
            long before = redis.pttl(key.redisKey());
            if (acquire(key, limits).allowed()) {
                long ttl = redis.pttl(key.redisKey());
                long tokens = Long.parseLong(redis.hget(key.redisKey(), "tokens"));
                long lag = Long.parseLong(redis.hget(key.redisKey(), "ts")) - redisNowMillis();
                long millisToFull = lag + (limits.capacityMicros() - tokens + limits.refillMicrosPerMilli() - 1)
                        / limits.refillMicrosPerMilli();
                assertThat(ttl).as("step %d", step).isGreaterThanOrEqualTo(millisToFull);
                if (ttl > before + 50) {
                    rearmed++;
                }
            }
            long passes = random.nextInt(4) == 0 ? random.nextInt(6_000) : random.nextInt(300);
            long ttl = redis.pttl(key.redisKey());
            if (ttl <= passes) {
                redis.del(key.redisKey()); // it would have expired: a full bucket, as when missing
                continue;
            }
            redis.hincrby(key.redisKey(), "ts", -passes);
            redis.hincrby(key.redisKey(), "xp", -passes);
            redis.pexpire(key.redisKey(), ttl - passes);
        }
        // Re-armed about once per fill time of simulated time, not on every admission.
        assertThat(rearmed).isBetween(5, 150);
    }

    /** A bucket an older version wrote has no xp; one with an xp that is not ours cannot be trusted. */
    @Test
    void aBucketWithoutAUsableXpIsRearmed() {
        BucketLimits limits = RateLimitRule.of(100, 10).limits(); // expiry 20 s
        for (String xp : new String[] {null, "abc", "nan", "1e999", Long.toString(Long.MAX_VALUE / 2)}) {
            BucketKey key = freshKey();
            acquire(key, limits);
            if (xp == null) {
                redis.hdel(key.redisKey(), "xp");
            } else {
                redis.hset(key.redisKey(), "xp", xp);
            }
            redis.pexpire(key.redisKey(), 12_000);
            acquire(key, limits);
            assertThat(redis.pttl(key.redisKey())).as("xp %s", xp).isBetween(19_000L, 20_000L);
        }
    }

    /** A lower fill time (a new rule) re-arms a shorter expiry, still past the time to fill. */
    @Test
    void aRuleThatFillsFasterRearmsAShorterExpiry() {
        BucketKey key = freshKey();
        acquire(key, RateLimitRule.of(100, 1).limits()); // expiry 200 s
        acquire(key, RateLimitRule.of(100, 100).limits()); // fills in 1 s: expiry 2 s
        assertThat(redis.pttl(key.redisKey())).isBetween(1_000L, 2_000L);
    }

    @Test
    void aRejectionWritesNothing() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(1, 0.001).limits();
        acquire(key, limits);
        Map<String, String> before = redis.hgetall(key.redisKey());
        assertThat(acquire(key, limits).allowed()).isFalse();
        assertThat(redis.hgetall(key.redisKey())).isEqualTo(before);
    }

    @Test
    void survivesScriptFlush() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(3, 0.001).limits();
        assertThat(acquire(key, limits).remaining()).isEqualTo(2);
        redis.scriptFlush();
        assertThat(redis.scriptExists(RedisBucketStore.SCRIPT.sha1())).containsExactly(false);

        assertThat(acquire(key, limits).remaining()).isEqualTo(1);
        assertThat(redis.scriptExists(RedisBucketStore.SCRIPT.sha1())).containsExactly(true);
    }

    @Test
    void survivesARedisRestartAndStartsFull() {
        try (RedisServer own = RedisServer.start()) {
            RedisClient ownClient = RedisClient.create(own.uri());
            try (StatefulRedisConnection<String, String> c = ownClient.connect()) {
                RedisBucketStore s = RedisBucketStore.on(c);
                BucketKey key = freshKey();
                BucketLimits limits = RateLimitRule.of(2, 0.001).limits();
                s.tryAcquire(key, limits).toCompletableFuture().join();
                s.tryAcquire(key, limits).toCompletableFuture().join();

                own.restart(); // empty: no scripts, no buckets; Lettuce reconnects by itself
                Decision d = s.tryAcquire(key, limits).toCompletableFuture().join();
                assertThat(d.allowed()).isTrue();
                assertThat(d.remaining()).isEqualTo(1);
            } finally {
                ownClient.shutdown();
            }
        }
    }

    @Test
    void corruptFieldsMeanAFullBucket() {
        BucketLimits limits = RateLimitRule.of(5, 1).limits();
        List<Map<String, String>> corruptions = List.of(
                Map.of("tokens", "abc", "ts", "123"),
                Map.of("tokens", "1000000", "ts", "yesterday"),
                Map.of("tokens", "nan", "ts", "1"),
                Map.of("tokens", "inf", "ts", "1"),
                Map.of("tokens", "-5", "ts", "1"),
                Map.of("tokens", "1000000"),
                Map.of("unrelated", "x"));
        for (Map<String, String> corruption : corruptions) {
            BucketKey key = freshKey();
            redis.hset(key.redisKey(), corruption);
            Decision d = acquire(key, limits);
            assertThat(d.allowed()).as("%s", corruption).isTrue();
            assertThat(d.remaining()).as("%s", corruption).isEqualTo(4);
            assertThat(redis.hget(key.redisKey(), "tokens")).as("%s", corruption).isEqualTo("4000000");
        }
    }

    @Test
    void aKeyOfAnotherTypeIsReplacedByAFullBucket() {
        BucketKey key = freshKey();
        redis.set(key.redisKey(), "not a hash");
        Decision d = acquire(key, RateLimitRule.of(5, 1).limits());
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(4);
        assertThat(redis.type(key.redisKey())).isEqualTo("hash");
    }

    @Test
    void fractionalTokensWrittenByAFloatingPointScriptAreRoundedDown() {
        BucketKey key = freshKey();
        redis.hset(key.redisKey(), Map.of("tokens", "153400000.7", "ts", Long.toString(redisNowMillis())));
        assertThat(acquire(key, RateLimitRule.of(200, 0.001).limits()).remaining()).isEqualTo(152);
    }

    @Test
    void whenRedisClockStepsBackTheBucketNeitherRefillsNorMovesItsTimestampBack() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(2, 1).limits(); // fill time 2 s
        long ahead = redisNowMillis() + 1_500; // as if the last write happened 1.5 s "later"
        redis.hset(key.redisKey(), Map.of("tokens", "1000000", "ts", Long.toString(ahead)));

        Decision first = acquire(key, limits);
        assertThat(first.allowed()).isTrue();
        assertThat(redis.hget(key.redisKey(), "ts")).isEqualTo(Long.toString(ahead));

        Decision rejected = acquire(key, limits);
        assertThat(rejected.allowed()).isFalse();
        // no token until the clock has caught up with the stored timestamp, then one second more
        assertThat(rejected.retryAfterMillis()).isBetween(2_000L, 2_500L);
    }

    @Test
    void aTimestampFarInTheFutureDelaysRefillByAtMostOneFillTime() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(2, 1).limits(); // fill time 2 s
        long farAhead = redisNowMillis() + 3_600_000;
        redis.hset(key.redisKey(), Map.of("tokens", "0", "ts", Long.toString(farAhead)));
        Decision d = acquire(key, limits);
        assertThat(d.allowed()).isFalse();
        assertThat(d.retryAfterMillis()).isBetween(2_900L, 3_000L);
    }
}
