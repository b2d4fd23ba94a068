package dev.tollgate.bench.jmh;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.Decision;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
 * One decision in Redis, as the gateway makes it: {@code RedisBucketStore.tryAcquire} (EVALSHA of
 * {@code token_bucket.lua}) through Lettuce against a real redis-server on the loopback interface,
 * one call at a time, waiting for each answer. {@code ping} is the same round trip with no work in
 * Redis, so the difference is the script's own cost.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class RedisRoundTripBenchmark {

    private static final int KEYS = 1024;

    private RedisServer server;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private RedisBucketStore store;
    private BucketKey[] keys;
    private BucketLimits limits;
    private int next;

    @Setup(Level.Trial)
    public void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect(StringCodec.UTF8);
        store = RedisBucketStore.on(connection);
        limits = RateLimitRule.of(1_000_000_000L, 1_000_000_000d).limits();
        keys = new BucketKey[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = new BucketKey("tenant-" + i, "create-order");
        }
    }

    @TearDown(Level.Trial)
    public void stopRedis() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.close();
    }

    @Benchmark
    public String ping() {
        return connection.async().ping().toCompletableFuture().join();
    }

    @Benchmark
    public Decision tryAcquire() {
        return store.tryAcquire(keys[next++ & (KEYS - 1)], limits).toCompletableFuture().join();
    }
}
