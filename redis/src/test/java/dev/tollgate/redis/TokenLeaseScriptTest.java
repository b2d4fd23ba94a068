package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.LeaseGrant;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.TokenLeaseSource;
import dev.tollgate.core.TokenLeaseSourceContract;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lease and return scripts on a real Redis: the lease-source contract (the same answers as the
 * in-memory buckets), plus what only Redis has: expiry, its own clock, corrupt keys, script flushes.
 */
class TokenLeaseScriptTest extends TokenLeaseSourceContract {

    /** Micro-tokens a 0.001 token/s bucket refills in the second a test may take on Redis's clock. */
    private static final long SLACK = 1000;

    private static LiveRedis live;
    private static RedisCommands<String, String> redis;
    private static RedisTokenLeaseSource leases;
    private static RedisBucketStore buckets;

    @BeforeAll
    static void startRedis() {
        live = LiveRedis.start();
        redis = live.connection.sync();
        leases = RedisTokenLeaseSource.on(live.connection);
        buckets = RedisBucketStore.on(live.connection);
    }

    @AfterAll
    static void stopRedis() {
        if (live != null) {
            live.close();
        }
    }

    @Override
    protected TokenLeaseSource source() {
        return leases;
    }

    @Override
    protected BucketStore store() {
        return buckets;
    }

    @Override
    protected void advance(BucketKey key, long millis) {
        live.advance(key, millis);
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

    /** A grant writes the bucket as an admission does: the expiry is re-armed only when needed. */
    @Test
    void aGrantRearmsTheExpiryOnlyWhenTheBucketCouldOutliveIt() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(100, 10).limits(); // fills in 10 s; expiry 20 s
        lease(key, limits, 10);
        assertThat(redis.pttl(key.redisKey())).isBetween(19_000L, 20_000L);

        redis.pexpire(key.redisKey(), 15_000);
        lease(key, limits, 10);
        assertThat(redis.pttl(key.redisKey())).as("not re-armed").isBetween(14_000L, 15_000L);

        redis.hdel(key.redisKey(), "xp");
        lease(key, limits, 10);
        assertThat(redis.pttl(key.redisKey())).as("re-armed").isBetween(19_000L, 20_000L);
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
    void givingBackToAMissingBucketCreatesNothing() {
        BucketKey key = freshKey();
        leases.giveBack(key, RateLimitRule.of(10, 1).limits(), 3 * M).toCompletableFuture().join();
        assertThat(redis.exists(key.redisKey())).isZero();
    }

    /**
     * The key's expiry was set by the last writer so that the bucket is full by then under its
     * limits. A give-back under a rule's old, faster limits must not shorten it: the key would
     * vanish (a missing bucket is a full one) long before the new rule refills it.
     */
    @Test
    void aGiveBackLeavesTheTimestampAndTheExpiryAsTheyAre() {
        BucketKey key = freshKey();
        BucketLimits before = RateLimitRule.of(100, 100).limits();
        BucketLimits after = RateLimitRule.of(100, 0.001).limits(); // fills in 100,000 s
        lease(key, before, 9);
        admittedUntilRejected(key, after);
        String ts = redis.hget(key.redisKey(), "ts");
        long ttl = redis.pttl(key.redisKey());
        assertThat(ttl).isGreaterThan(100_000_000L);

        giveBack(key, before, 9);
        assertThat(redis.pttl(key.redisKey())).isBetween(ttl - 1000, ttl);
        assertThat(redis.hget(key.redisKey(), "ts")).isEqualTo(ts);
        assertThat(storedTokens(key)).isBetween(9 * M, 9 * M + SLACK);
    }

    /**
     * Redis's clock stepped back: the bucket was last written 5 s "in the future". A give-back adds
     * to it and leaves the timestamp there, so nothing refills until the clock catches up, as
     * for any other reader; and when the timestamp lies more than a fill time ahead, a reader
     * still treats it as one fill time from its own now.
     */
    @Test
    void aGiveBackWhileRedisIsBehindTheBucketsTimestampMintsNothing() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(10, 0.001).limits();
        lease(key, limits, 10);
        redis.hincrby(key.redisKey(), "ts", 5_000);
        String ts = redis.hget(key.redisKey(), "ts");
        giveBack(key, limits, 4);
        assertThat(redis.hget(key.redisKey(), "ts")).isEqualTo(ts);
        assertThat(storedTokens(key)).isEqualTo(4 * M);
        assertThat(admittedUntilRejected(key, limits)).isEqualTo(4);

        BucketKey farAhead = freshKey();
        BucketLimits fast = RateLimitRule.of(10, 1).limits(); // fills in 10 s
        lease(farAhead, fast, 10);
        redis.hincrby(farAhead.redisKey(), "ts", 60_000);
        giveBack(farAhead, fast, 4);
        assertThat(admittedUntilRejected(farAhead, fast)).isEqualTo(4);
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
