package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.BucketStoreContract;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.ManualClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The bucket-store contract for a leasing store over Redis that leases every key (threshold 0):
 * decisions from leases, partial grants and local backoff must answer as the plain store does.
 * Time passes for a bucket by moving its Redis timestamp back and the instance's manual clock on.
 */
class LeasingRedisBucketStoreTest extends BucketStoreContract {

    private static LiveRedis redis;

    private final ManualClock clock = new ManualClock();
    private final LeasingBucketStore store = new LeasingBucketStore(
            RedisBucketStore.on(redis.connection), RedisTokenLeaseSource.on(redis.connection),
            new LeasePolicy(0, 100, 1000, 1.0, 60_000), clock);

    @BeforeAll
    static void startRedis() {
        redis = LiveRedis.start();
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
        clock.advanceMillis(millis);
    }

    @Override
    protected long clockSlackMillis() {
        return 500;
    }
}
