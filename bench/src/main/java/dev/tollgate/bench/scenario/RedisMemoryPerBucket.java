package dev.tollgate.bench.scenario;

import dev.tollgate.bench.builtin.BuiltInLimiterScript;
import dev.tollgate.bench.process.BenchRoutes;
import dev.tollgate.bench.process.GatewayVariant;
import dev.tollgate.bench.redis.RedisStats;
import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.ScriptCalls;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Redis memory per bucket: an empty Redis is filled with {@code tenants × routes} buckets through
 * each limiter's own Lua script, and {@code used_memory} is read before and after. The script is
 * loaded before the first reading, so its cache is not counted. With plans (Tollgate's multi-limit
 * path) a "bucket" is a limit state: each tenant on the suite's three-limit plan has one per route
 * (its each-route bucket) and two of its own (its tenant bucket and day quota), all fields of the
 * tenant's one key, so a tenant's requests on every route create {@code routes + 2} states.
 *
 * <p>The rule (100 tokens, 1 per second) gives both limiters an expiry of 200 s, longer than the
 * fill takes, so no bucket expires while being counted.
 */
public final class RedisMemoryPerBucket {

    /** One limiter's footprint. */
    public record Result(String limiter, long buckets, long keys, long bytes, double seconds, long sampleKeyBytes) {

        public double bytesPerBucket() {
            return (double) bytes / buckets;
        }
    }

    static final long CAPACITY = 100;
    static final long RATE = 1;
    private static final int IN_FLIGHT = 512;

    private final String host;
    private final int port;
    private final RedisStats stats;

    public RedisMemoryPerBucket(String host, int port, RedisStats stats) {
        this.host = host;
        this.port = port;
        this.stats = stats;
    }

    public Result tollgate(int tenants, List<String> routes) {
        return withConnection(redis -> {
            RedisBucketStore store = RedisBucketStore.on(redis.getStatefulConnection());
            BucketLimits limits = RateLimitRule.of(CAPACITY, RATE).limits();
            return fill("Tollgate", tenants, routes, (long) tenants * routes.size(),
                    (tenant, route) -> store.tryAcquire(new BucketKey(tenant, route), limits),
                    RedisMemoryPerBucket::tollgateKey);
        });
    }

    /**
     * Tollgate's multi-limit path with the suite's three-limit plan ({@link BenchRoutes#THREE_LIMIT_NAMES}:
     * a bucket on each route, a bucket on the tenant, a UTC day quota), the default layout.
     */
    public Result tollgateThreeLimits(int tenants, List<String> routes) {
        return withConnection(redis -> {
            MultiLimitScript script = new MultiLimitScript(ScriptCalls.on(redis.getStatefulConnection()));
            TokenBucket bucket = new TokenBucket(CAPACITY, RATE);
            List<Limit> limits = List.of(
                    new Limit(BenchRoutes.THREE_LIMIT_NAMES.get(0), LimitScope.eachRoute(), bucket),
                    new Limit(BenchRoutes.THREE_LIMIT_NAMES.get(1), LimitScope.tenant(), bucket),
                    new Limit(BenchRoutes.THREE_LIMIT_NAMES.get(2), LimitScope.tenant(),
                            new CalendarQuota(BenchRoutes.UNREACHED_QUOTA, QuotaPeriod.DAY)));
            return fill(GatewayVariant.TOLLGATE_THREE_LIMITS.label(), tenants, routes,
                    (long) tenants * (routes.size() + 2),
                    (tenant, route) -> script.decide(limits.stream().map(l -> LimitCharge.of(tenant, route, l)).toList()),
                    (tenant, route) -> MultiLimitScript.redisKey(limits.get(0).keyFor(tenant, route)));
        });
    }

    public Result builtIn(String script, int tenants, List<String> routes) {
        return withConnection(redis -> {
            String sha = stats.scriptLoad(script);
            String[] args = BuiltInLimiterScript.args(RATE, CAPACITY).toArray(String[]::new);
            return fill("SCG RedisRateLimiter", tenants, routes, (long) tenants * routes.size(),
                    (tenant, route) -> redis.<List<Object>>evalsha(sha, ScriptOutputType.MULTI,
                            BuiltInLimiterScript.keys(route, tenant).toArray(String[]::new), args),
                    (tenant, route) -> BuiltInLimiterScript.keys(route, tenant).get(0));
        });
    }

    private Result fill(String limiter, int tenants, List<String> routes, long buckets,
                        BiFunction<String, String, CompletionStage<?>> takeOne,
                        BiFunction<String, String, String> sampleKey) {
        stats.flushAll();
        // One call first: loads the script (EVALSHA falls back to EVAL) before the baseline reading.
        join(takeOne.apply("warm-up", routes.get(0)));
        stats.flushAll();
        long before = stats.usedMemoryBytes();
        long start = System.nanoTime();
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < tenants; t++) {
            for (String route : routes) {
                inFlight.acquireUninterruptibly();
                takeOne.apply("tenant-" + t, route).whenComplete((ok, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    }
                    inFlight.release();
                });
            }
        }
        inFlight.acquireUninterruptibly(IN_FLIGHT);
        if (failure.get() != null) {
            throw new IllegalStateException(limiter + ": filling buckets failed", failure.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long after = stats.usedMemoryBytes();
        Long sample = stats.memoryUsage(sampleKey.apply("tenant-" + (tenants / 2), routes.get(0)));
        Result result = new Result(limiter, buckets, stats.keys(), after - before, seconds,
                sample == null ? -1 : sample);
        stats.flushAll();
        return result;
    }

    private static String tollgateKey(String tenant, String route) {
        return new BucketKey(tenant, route).redisKey();
    }

    private Result withConnection(Function<RedisAsyncCommands<String, String>, Result> body) {
        RedisClient client = RedisClient.create("redis://" + host + ":" + port);
        try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8)) {
            return body.apply(connection.async());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static void join(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Redis call failed", e);
        }
    }
}
