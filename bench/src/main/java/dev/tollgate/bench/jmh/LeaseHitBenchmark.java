package dev.tollgate.bench.jmh;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.Decision;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A decision served from a token lease this instance already holds: {@link LeasingBucketStore} on
 * the real {@link RedisTokenLeaseSource} ({@code token_lease.lua} in a real redis-server on the
 * loopback interface), one hot key, one call at a time.
 *
 * <p>The policy leases every key at once and sizes each batch to last a second at the rate this
 * thread reaches (up to 10<sup>8</sup> tokens; the rule's capacity is 10<sup>9</sup> and its
 * refill as fast), so after the first few batches of warm-up a lease call comes once or twice a
 * second, and almost every measured decision is a hit: no Redis call, a synchronized counter per key.
 * The figure is only honest if that is so, hence {@link RedisCalls}: the Redis calls the store
 * actually made during each measured iteration, against the decisions made, reported by JMH beside
 * the time (and the totals printed at the end of the trial). The figure includes the rare lease
 * call, not just the hit: it is what a key pays per decision when its batches are this large.
 *
 * <p>{@code leasingOff} is the same store, rule and connection with a policy under which no key
 * is ever hot: every decision is one {@code EVALSHA} of {@code token_bucket.lua}, as for a cold key
 * in the gateway ({@link RedisRoundTripBenchmark#tryAcquire()} is the same call without the
 * leasing store in front).
 *
 * <p>With the gateway's defaults (a batch of at most 50 tokens and a tenth of the capacity) a hot
 * key makes one lease call per batch, so its mean cost per decision is about a hit plus a
 * fiftieth of a round trip.
 */
@BenchmarkMode(Mode.AverageTime)
@State(Scope.Benchmark)
public class LeaseHitBenchmark {

    /** Never the limit: neither the bucket nor a grant ever runs short. */
    private static final RateLimitRule RULE = RateLimitRule.of(RateLimitRule.MAX_CAPACITY,
            RateLimitRule.MAX_REFILL_PER_SECOND);

    /**
     * Every key leased from its first request; a batch lasts 1 s at the observed rate, capped at
     * 10^8 tokens (a tenth of the capacity); unspent tokens are kept for a minute, longer than a
     * trial's iterations, so none go back in the middle of a measurement.
     */
    static final LeasePolicy BIG_BATCHES = new LeasePolicy(0, 1_000, 100_000_000L, 0.1, 60_000);

    /** No key ever reaches this rate: every decision goes to Redis. */
    static final LeasePolicy NEVER_LEASE = new LeasePolicy(Double.MAX_VALUE, 1_000, 1, 0.1, 60_000);

    private RedisServer server;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private LeasingBucketStore leasing;
    private LeasingBucketStore notLeasing;
    private final BucketLimits limits = RULE.limits();
    private final BucketKey hotKey = new BucketKey("tenant-hot", "create-order");
    private final BucketKey coldKey = new BucketKey("tenant-cold", "create-order");

    @Setup(Level.Trial)
    public void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect(StringCodec.UTF8);
        RedisBucketStore perRequest = RedisBucketStore.on(connection);
        RedisTokenLeaseSource leases = RedisTokenLeaseSource.on(connection);
        leasing = new LeasingBucketStore(perRequest, leases, BIG_BATCHES, MonotonicClock.system());
        notLeasing = new LeasingBucketStore(perRequest, leases, NEVER_LEASE, MonotonicClock.system());
    }

    @TearDown(Level.Trial)
    public void stopRedis() {
        // Printed into JMH's output (jmh.log in a suite run): the whole trial, warm-up included, of
        // the store this trial's benchmark used.
        for (LeasingBucketStore store : new LeasingBucketStore[] {leasing, notLeasing}) {
            if (store.remoteCalls() + store.localDecisions() > 0) {
                System.out.println(summary(store == leasing ? "leasing" : "not leasing", store));
            }
        }
        leasing.close();
        notLeasing.close();
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.close();
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public Decision leaseHit(RedisCalls calls) {
        calls.decisions++;
        return leasing.tryAcquire(hotKey, limits).toCompletableFuture().join();
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Decision leasingOff(RedisCalls calls) {
        calls.decisions++;
        return notLeasing.tryAcquire(coldKey, limits).toCompletableFuture().join();
    }

    /** Every call the two stores made to Redis so far (per-request, lease and give-back calls). */
    long redisCallsSoFar() {
        return leasing.remoteCalls() + notLeasing.remoteCalls();
    }

    private static String summary(String name, LeasingBucketStore store) {
        long decisions = store.localDecisions() + store.perRequestCalls() + store.leaseCalls();
        return String.format(Locale.ROOT, "[%s] %s: %d lease calls, %d per-request calls, %d give-backs,"
                        + " %d decisions in memory",
                LeaseHitBenchmark.class.getSimpleName(), name, store.leaseCalls(), store.perRequestCalls(),
                store.giveBackCalls(), store.localDecisions())
                + (decisions == 0 ? "" : String.format(Locale.ROOT, " (Redis calls per decision about %.2e)",
                (double) store.remoteCalls() / decisions));
    }

    /**
     * Decisions made and Redis calls sent during one iteration, reported by JMH as secondary results
     * (summed over the measured iterations): their ratio says how many decisions were hits. Read at
     * the iteration's start and end only, so the measured loop pays for one field increment.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class RedisCalls {

        public long decisions;
        public long redisCalls;
        private long atStart;

        @Setup(Level.Iteration)
        public void start(LeaseHitBenchmark benchmark) {
            decisions = 0;
            redisCalls = 0;
            atStart = benchmark.redisCallsSoFar();
        }

        @TearDown(Level.Iteration)
        public void stop(LeaseHitBenchmark benchmark) {
            redisCalls = benchmark.redisCallsSoFar() - atStart;
        }
    }
}
