package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.BucketStoreContract;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.ManualClock;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The bucket-store contract for a leasing store over Redis that leases every key (threshold 0):
 * decisions from leases, partial grants and local backoff must answer as the plain store does.
 * Time passes for a bucket by moving its Redis timestamp back and the instance's manual clock on.
 */
class LeasingRedisBucketStoreTest extends BucketStoreContract {

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    private final ManualClock clock = new ManualClock();
    private final LeasingBucketStore store = new LeasingBucketStore(
            new RedisBucketStore(connection.async()), new RedisTokenLeaseSource(connection.async()),
            new LeasePolicy(0, 100, 1000, 1.0, 60_000), clock);

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect();
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
        clock.advanceMillis(millis);
    }

    @Override
    protected long clockSlackMillis() {
        return 500;
    }
}
