package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.BucketStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The bucket-store contract, on a real Redis (the system's 7.x, else the embedded 6.2). */
class RedisBucketStoreTest extends BucketStoreContract {

    private static LiveRedis redis;
    private static RedisBucketStore store;

    @BeforeAll
    static void startRedis() {
        redis = LiveRedis.start();
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

    /** Redis's clock keeps running during a test. */
    @Override
    protected long clockSlackMillis() {
        return 500;
    }
}
