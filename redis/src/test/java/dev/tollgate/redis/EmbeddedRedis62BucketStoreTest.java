package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.BucketStoreContract;
import dev.tollgate.testkit.RedisBinary;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The bucket-store contract on the Redis 6.2 binary that dev mode falls back to on machines
 * without a system Redis: the script must behave the same there.
 */
class EmbeddedRedis62BucketStoreTest extends BucketStoreContract {

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisBucketStore store;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start(RedisBinary.embedded(), List.of());
        client = RedisClient.create(server.uri());
        connection = client.connect();
        store = new RedisBucketStore(connection.async());
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

    @Override
    protected BucketStore store() {
        return store;
    }

    @Override
    protected void advance(BucketKey key, long millis) {
        if (connection.sync().exists(key.redisKey()) == 1) {
            connection.sync().hincrby(key.redisKey(), "ts", -millis);
        }
    }

    @Override
    protected long clockSlackMillis() {
        return 500;
    }
}
