package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.LeaseGrant;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lease and return scripts on a real Redis: the same bucket as the per-request script. */
class TokenLeaseScriptTest {

    private static final long M = BucketLimits.MICROS_PER_TOKEN;
    /** Micro-tokens a 0.001 token/s bucket refills in the second a test may take on Redis's clock. */
    private static final long SLACK = 1000;
    private static final AtomicInteger TENANTS = new AtomicInteger();

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;
    private static RedisTokenLeaseSource leases;
    private static RedisBucketStore buckets;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect();
        redis = connection.sync();
        leases = new RedisTokenLeaseSource(connection.async());
        buckets = new RedisBucketStore(connection.async());
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
        return new BucketKey("lease-test-" + TENANTS.incrementAndGet(), "route");
    }

    private static LeaseGrant lease(BucketKey key, BucketLimits limits, long tokens) {
        return leases.takeUpTo(key, limits, tokens * M).toCompletableFuture().join();
    }

    private static long storedTokens(BucketKey key) {
        return Long.parseLong(redis.hget(key.redisKey(), "tokens"));
    }

    @Test
    void grantsWhatIsAskedWhileTheBucketHoldsIt() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(100, 0.001).limits();
        LeaseGrant grant = lease(key, limits, 30);
        assertThat(grant).isEqualTo(new LeaseGrant(30 * M, 70 * M, 0));
        assertThat(storedTokens(key)).isEqualTo(70 * M);
        assertThat(redis.pttl(key.redisKey())).isPositive();
    }

    @Test
    void grantsPartiallyInWholeRequestsAndSaysWhenABatchIsBack() {
        BucketKey key = freshKey();
        BucketLimits costThree = new RateLimitRule(10, 1, 3).limits();
        assertThat(lease(key, costThree, 9).grantedMicros()).isEqualTo(9 * M);
        LeaseGrant partial = lease(key, costThree, 9); // 1 token left: less than one request
        assertThat(partial.grantedMicros()).isZero();
        assertThat(partial.tokensLeftMicros()).isBetween(1 * M, 2 * M);
        assertThat(partial.millisUntilRequested()).isBetween(7_000L - 500, 8_000L);

        BucketKey other = freshKey();
        BucketLimits costOne = RateLimitRule.of(10, 0.001).limits();
        lease(other, costOne, 7);
        LeaseGrant rest = lease(other, costOne, 5);
        assertThat(rest.grantedMicros()).isEqualTo(3 * M);
        // 0.001 token/s is 1 micro-token per ms: allow a second of Redis's clock running on
        assertThat(rest.tokensLeftMicros()).isBetween(0L, SLACK);
        assertThat(rest.millisUntilRequested()).isBetween(5_000_000L - SLACK, 5_000_000L); // 5 tokens at 0.001/s
    }

    @Test
    void leasesAndPerRequestCallsShareTheBucket() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(10, 0.001).limits();
        lease(key, limits, 4);
        assertThat(buckets.tryAcquire(key, limits).toCompletableFuture().join().remaining()).isEqualTo(5);
        assertThat(lease(key, limits, 10).grantedMicros()).isEqualTo(5 * M);
        assertThat(buckets.tryAcquire(key, limits).toCompletableFuture().join().allowed()).isFalse();
    }

    @Test
    void aZeroGrantWritesNothing() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(2, 0.001).limits();
        lease(key, limits, 2);
        Map<String, String> before = redis.hgetall(key.redisKey());
        assertThat(lease(key, limits, 2).grantedMicros()).isZero();
        assertThat(redis.hgetall(key.redisKey())).isEqualTo(before);
    }

    @Test
    void givingBackAddsTokensButNeverAboveTheCapacity() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(10, 0.001).limits();
        lease(key, limits, 8);
        leases.giveBack(key, limits, 3 * M).toCompletableFuture().join();
        assertThat(storedTokens(key)).isBetween(5 * M, 5 * M + SLACK);
        leases.giveBack(key, limits, 30 * M).toCompletableFuture().join();
        assertThat(storedTokens(key)).isEqualTo(10 * M);
    }

    @Test
    void givingBackToAMissingBucketCreatesNothing() {
        BucketKey key = freshKey();
        leases.giveBack(key, RateLimitRule.of(10, 1).limits(), 3 * M).toCompletableFuture().join();
        assertThat(redis.exists(key.redisKey())).isZero();
    }

    @Test
    void aCorruptBucketIsAFullOne() {
        BucketKey key = freshKey();
        redis.hset(key.redisKey(), Map.of("tokens", "nan", "ts", "x"));
        assertThat(lease(key, RateLimitRule.of(10, 1).limits(), 4).tokensLeftMicros()).isEqualTo(6 * M);
        BucketKey wrongType = freshKey();
        redis.set(wrongType.redisKey(), "not a hash");
        assertThat(lease(wrongType, RateLimitRule.of(10, 1).limits(), 4).grantedMicros()).isEqualTo(4 * M);
    }

    @Test
    void survivesScriptFlush() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(10, 0.001).limits();
        lease(key, limits, 1);
        redis.scriptFlush();
        assertThat(lease(key, limits, 1).tokensLeftMicros()).isBetween(8 * M, 8 * M + SLACK);
        assertThat(redis.scriptExists(RedisTokenLeaseSource.leaseScript().sha1())).containsExactly(true);
        leases.giveBack(key, limits, 2 * M).toCompletableFuture().join();
        assertThat(storedTokens(key)).isEqualTo(10 * M);
    }

    @Test
    void refusesALeaseAboveTheCapacity() {
        assertThatThrownBy(() -> lease(freshKey(), RateLimitRule.of(10, 1).limits(), 11))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("11000000");
    }
}
