package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.testkit.RedisBinary;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.util.List;

/** A real Redis for a test class, with a client and one connection, closed together. */
final class LiveRedis implements AutoCloseable {

    final RedisServer server;
    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;

    private LiveRedis(RedisServer server) {
        this.server = server;
        this.client = RedisClient.create(server.uri());
        this.connection = client.connect();
    }

    /** The system's Redis 7+, else the embedded binary. */
    static LiveRedis start() {
        return new LiveRedis(RedisServer.start());
    }

    /** A given redis-server binary, e.g. {@link RedisBinary#embedded()}. */
    static LiveRedis start(Path binary) {
        return new LiveRedis(RedisServer.start(binary, List.of()));
    }

    /** Makes {@code millis} pass for one bucket by moving its stored timestamp back: no sleeping. */
    void advance(BucketKey key, long millis) {
        if (connection.sync().exists(key.redisKey()) == 1) {
            connection.sync().hincrby(key.redisKey(), "ts", -millis);
        }
    }

    @Override
    public void close() {
        client.shutdown();
        server.close();
    }
}
