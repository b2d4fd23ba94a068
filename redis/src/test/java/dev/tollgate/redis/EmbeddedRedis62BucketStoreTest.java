package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.BucketStoreContract;
import dev.tollgate.testkit.RedisBinary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The bucket-store contract on the Redis 6.2 binary that dev mode falls back to on machines
 * without a system Redis: the script must behave the same there.
 */
class EmbeddedRedis62BucketStoreTest extends BucketStoreContract {

    private static LiveRedis redis;
    private static RedisBucketStore store;

    @BeforeAll
    static void startRedis() {
        redis = LiveRedis.start(RedisBinary.embedded());
        store = RedisBucketStore.on(redis.connection);
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected BucketStore store() {
        return store;
    }

    @Override
    protected void advance(BucketKey key, long millis) {
        redis.advance(key, millis);
    }

    @Override
    protected long clockSlackMillis() {
        return 500;
    }
}
