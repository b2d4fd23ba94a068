package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.testkit.CommandCounts;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three store instances, each with its own Lettuce client and connection like three gateway
 * instances, hammer one tenant's key on one real Redis for a few seconds, at about twice the rule's
 * rate. Every admission is counted and time-stamped: the cluster never admits more than the rule
 * allows over the run ({@code capacity + rate × time since the first request}) nor in the steady
 * window ({@code capacity + rate × window}, plus a lease's slack); once the burst is spent, the
 * admitted rate is at least 80 % of the rule's rate; with leases, the Redis calls per admitted
 * request are at most 1/20, counted both in the stores and by Redis itself
 * ({@code INFO commandstats}).
 *
 * <p>The upper bounds are the token bucket's own invariants and hold whatever the machine does. The
 * lower bound is where real time is the subject: the offered load is about twice the rule's rate,
 * so the admitted rate falls below 80 % only if the limiter under-admits or the load threads lose
 * together more than a fifth of the window to stalls, which a busy 2-core machine does not do
 * (measured: within 1 % of the rule, docs/hot-keys-and-cluster.md). The figures are logged (logger
 * {@code measured}) and carried by every assertion's message.
 *
 * <p>The total is not held to a lower bound: the load is closed-loop (a thread waits for its
 * answer), so while the bucket is still full and every request is a Redis call, a slow machine
 * offers less than the rate and the full bucket loses refill to its cap, as any token bucket would.
 */
// Alone: it checks that the admitted rate reaches the rule's, which needs the cores to itself.
@Isolated
class MultiInstanceAccuracyTest {

    private static final int INSTANCES = 3;
    private static final int THREADS_PER_INSTANCE = 2;
    /** Lowest admitted rate accepted once the burst is spent, as a fraction of the rule's (see above). */
    private static final double LEAST_STEADY_SHARE = 0.8;
    private static final Logger MEASURED = LoggerFactory.getLogger("measured");

    private static RedisServer server;
    private final List<RedisClient> clients = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void closeClients() {
        clients.forEach(RedisClient::shutdown);
        clients.clear();
    }

    private RedisClient newClient() {
        RedisClient client = RedisClient.create(server.uri());
        clients.add(client);
        return client;
    }

    @Test
    void perRequestStoresAdmitTheRuleAndNeverMore() {
        BucketLimits limits = RateLimitRule.of(100, 1000).limits();
        BucketKey key = new BucketKey("accuracy-per-request", "orders");
        List<BucketStore> instances = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            instances.add(RedisBucketStore.on(newClient().connect()));
        }
        warmUp(instances, limits);
        server.command("CONFIG", "RESETSTAT");
        PacedLoad.Result result = PacedLoad.run(instances, THREADS_PER_INSTANCE, 400, Duration.ofSeconds(3),
                (thread, n) -> key, limits);

        String figures = result.figures(100, 1000, 0.5, 3.0) + "; Redis script calls " + scriptCalls()
                + ", store calls " + (result.admitted() + result.rejected());
        MEASURED.info("[accuracy] per-request, {} instances: {}", INSTANCES, figures);
        assertThat(result.errors()).as(figures).isZero();
        assertThat((double) result.admitted()).as(figures).isLessThanOrEqualTo(result.allowedBy(100, 1000));
        // In the window: what the bucket held at its start (at most C) plus the refill, plus one
        // request per load thread decided before the window and counted when its answer came.
        assertThat((double) result.admittedBetween(0.5, 3.0)).as(figures)
                .isLessThanOrEqualTo(100 + 1000 * 2.5 + INSTANCES * THREADS_PER_INSTANCE);
        assertThat(result.admittedPerSecond(0.5, 3.0)).as(figures).isGreaterThanOrEqualTo(LEAST_STEADY_SHARE * 1000);
    }

    @Test
    void leasingStoresAdmitTheRuleWithOneRedisCallPerTwentyAdmissions() {
        // A burst of half a second (the README's example rules have two): a bucket that holds a few
        // batches rides out a pause of the load threads on a busy 2-core machine without losing
        // refill to its cap.
        BucketLimits limits = RateLimitRule.of(2000, 4000).limits();
        BucketKey key = new BucketKey("accuracy-leases", "orders");
        LeasePolicy policy = new LeasePolicy(50, 100, 100, 0.25, 1000);
        List<LeasingBucketStore> instances = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            var redis = newClient().connect();
            instances.add(new LeasingBucketStore(RedisBucketStore.on(redis), RedisTokenLeaseSource.on(redis),
                    policy, MonotonicClock.system()));
        }
        warmUp(instances, limits);
        long callsBefore = instances.stream().mapToLong(LeasingBucketStore::remoteCalls).sum();
        server.command("CONFIG", "RESETSTAT");
        PacedLoad.Result result = PacedLoad.run(instances, THREADS_PER_INSTANCE, 1300, Duration.ofSeconds(4),
                (thread, n) -> key, limits);
        long storeCalls = instances.stream().mapToLong(LeasingBucketStore::remoteCalls).sum() - callsBefore;
        long redisCalls = scriptCalls();
        instances.forEach(LeasingBucketStore::close); // unspent leased tokens go back to the bucket
        long leftInBucket = Long.parseLong(server.command("HGET", key.redisKey(), "tokens"))
                / BucketLimits.MICROS_PER_TOKEN;

        // The burst is spent by 0.6 s: the steady window starts at 1 s.
        String figures = result.figures(2000, 4000, 1.0, 4.0) + String.format(Locale.ROOT,
                "; Redis script calls %d (store counted %d), per-request %d, lease %d, give-back %d calls since "
                        + "the warm-up began; %.4f script calls per "
                        + "admitted request; %d tokens left in the bucket after the give-backs",
                redisCalls, storeCalls, instances.stream().mapToLong(LeasingBucketStore::perRequestCalls).sum(),
                instances.stream().mapToLong(LeasingBucketStore::leaseCalls).sum(),
                instances.stream().mapToLong(LeasingBucketStore::giveBackCalls).sum(),
                (double) redisCalls / result.admitted(), leftInBucket);
        MEASURED.info("[accuracy] leases, {} instances: {}", INSTANCES, figures);
        assertThat(result.errors()).as(figures).isZero();
        // Leased tokens are taken from the bucket before they are spent: never more than the rule.
        assertThat((double) result.admitted()).as(figures).isLessThanOrEqualTo(result.allowedBy(2000, 4000));
        // In the window: C + R × w, plus up to one batch of leased tokens per instance taken
        // before the window and spent in it, plus one answer in flight per load thread.
        assertThat((double) result.admittedBetween(1.0, 4.0)).as(figures)
                .isLessThanOrEqualTo(2000 + 4000 * 3.0 + INSTANCES * policy.maxBatchTokens()
                        + INSTANCES * THREADS_PER_INSTANCE);
        assertThat(result.admittedPerSecond(1.0, 4.0)).as(figures).isGreaterThanOrEqualTo(LEAST_STEADY_SHARE * 4000);
        // The warm-up key's leases are given back during the run; the first give-back per instance
        // meets NOSCRIPT (the return script was not used yet) and Redis counts its EVAL too.
        assertThat(redisCalls).as(figures).isBetween(storeCalls, storeCalls + INSTANCES);
        assertThat((double) redisCalls / result.admitted()).as(figures).isLessThanOrEqualTo(1 / 20d);
    }

    /** Connections, scripts and JIT warmed up on another key, so the timed run measures the rule only. */
    private static void warmUp(List<? extends BucketStore> instances, BucketLimits limits) {
        BucketKey other = new BucketKey("warm-up-" + System.nanoTime(), "orders");
        for (BucketStore instance : instances) {
            for (int i = 0; i < 200; i++) {
                instance.tryAcquire(other, limits).toCompletableFuture().join();
            }
        }
    }

    /** EVALSHA and EVAL calls Redis counted since the last {@code CONFIG RESETSTAT}. */
    private static long scriptCalls() {
        return CommandCounts.parse(server.command("INFO", "commandstats")).scriptCalls();
    }
}
