package dev.tollgate.bench.scenario;

import dev.tollgate.bench.builtin.BuiltInLimiterScript;
import dev.tollgate.bench.redis.RedisStats;
import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.redis.RedisBucketStore;
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
 * loaded before the first reading, so its cache is not counted.
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
            return fill("Tollgate", tenants, routes,
                    (tenant, route) -> store.tryAcquire(new BucketKey(tenant, route), limits),
                    RedisMemoryPerBucket::tollgateKey);
        });
    }

    public Result builtIn(String script, int tenants, List<String> routes) {
        return withConnection(redis -> {
            String sha = stats.scriptLoad(script);
            String[] args = BuiltInLimiterScript.args(RATE, CAPACITY).toArray(String[]::new);
            return fill("SCG RedisRateLimiter", tenants, routes,
                    (tenant, route) -> redis.<List<Object>>evalsha(sha, ScriptOutputType.MULTI,
                            BuiltInLimiterScript.keys(route, tenant).toArray(String[]::new), args),
                    (tenant, route) -> BuiltInLimiterScript.keys(route, tenant).get(0));
        });
    }

    private Result fill(String limiter, int tenants, List<String> routes,
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
        long buckets = (long) tenants * routes.size();
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
