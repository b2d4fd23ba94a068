package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.BucketStoreContract;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The bucket-store contract, on a real Redis (the system's 7.x, else the embedded 6.2). */
class RedisBucketStoreTest extends BucketStoreContract {

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisBucketStore store;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
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

    /** Time passes for one bucket by moving its stored timestamp back; no sleeping. */
    @Override
    protected void advance(BucketKey key, long millis) {
        RedisCommands<String, String> redis = connection.sync();
        if (redis.exists(key.redisKey()) == 1) {
            redis.hincrby(key.redisKey(), "ts", -millis);
        }
    }

    /** Redis's clock keeps running during a test. */
    @Override
    protected long clockSlackMillis() {
        return 500;
    }
}
