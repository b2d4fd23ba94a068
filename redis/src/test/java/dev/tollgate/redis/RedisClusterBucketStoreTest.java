package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketRequest;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.BucketStoreContract;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.ShardedBucketStore;
import dev.tollgate.testkit.RedisCluster;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bucket-store contract on a real Redis Cluster (3 masters, 3 replicas) through Lettuce's
 * cluster client, plus what only a cluster has: routing by slot and NOSCRIPT per node.
 */
class RedisClusterBucketStoreTest extends BucketStoreContract {

    private static RedisCluster cluster;
    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;
    private static RedisBucketStore store;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
        client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
        client.setOptions(RecommendedClusterClientOptions.defaults()
                .withPeriodicRefresh(Duration.ofSeconds(1)).toClientOptions());
        connection = client.connect();
        store = RedisBucketStore.on(connection);
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected BucketStore store() {
        return store;
    }

    /** Time passes for one bucket by moving its stored timestamp back, on whichever node owns it. */
    @Override
    protected void advance(BucketKey key, long millis) {
        RedisAdvancedClusterCommands<String, String> redis = connection.sync();
        if (redis.exists(key.redisKey()) == 1) {
            redis.hincrby(key.redisKey(), "ts", -millis);
        }
    }

    @Override
    protected long clockSlackMillis() {
        return 500;
    }

    /** One bucket key per master: tenants are tried until every master owns one. */
    private static Map<RedisServer, BucketKey> oneKeyPerMaster(String prefix) {
        Map<RedisServer, BucketKey> keys = new LinkedHashMap<>();
        for (int i = 0; keys.size() < cluster.masters().size() && i < 1000; i++) {
            BucketKey key = new BucketKey(prefix + "-" + i + "-" + System.nanoTime(), "route");
            keys.putIfAbsent(cluster.masterOf(key.redisKey()), key);
        }
        assertThat(keys).hasSize(3);
        return keys;
    }

    @Test
    void eachBucketLivesOnTheMasterThatOwnsItsSlot() {
        BucketLimits limits = RateLimitRule.of(5, 1).limits();
        oneKeyPerMaster("routing").forEach((owner, key) -> {
            assertThat(store.tryAcquire(key, limits).toCompletableFuture().join().remaining()).isEqualTo(4);
            for (RedisServer master : cluster.masters()) {
                String exists = master.command("EXISTS", key.redisKey());
                assertThat(exists).as("EXISTS on %s", master.port())
                        .isEqualTo(master == owner ? ":1" : "-MOVED " + cluster.slotOf(key.redisKey())
                                + " 127.0.0.1:" + owner.port());
            }
        });
    }

    @Test
    void theShardsOfOneRuleSpreadOverEveryMaster() {
        int shards = 12;
        ShardedBucketStore sharded = new ShardedBucketStore(store, false);
        BucketKey key = new BucketKey("hot-tenant-" + System.nanoTime(), "orders");
        BucketLimits limits = RateLimitRule.of(1200, 0.012).limits();
        for (int i = 0; i < 600; i++) {
            assertThat(sharded.tryAcquire(new BucketRequest(key, limits, shards)).toCompletableFuture().join().allowed())
                    .isTrue();
        }
        Set<RedisServer> holders = new HashSet<>();
        for (int i = 0; i < shards; i++) {
            String shardKey = key.shard(i).redisKey();
            RedisServer owner = cluster.masterOf(shardKey);
            assertThat(owner.command("EXISTS", shardKey)).as(shardKey).isEqualTo(":1");
            holders.add(owner);
        }
        assertThat(holders).hasSize(3);
        assertThat(cluster.masterOf(key.redisKey()).command("EXISTS", key.redisKey())).isEqualTo(":0");
    }

    @Test
    void aScriptFlushedOnOneNodeIsLoadedAgainOnThatNode() {
        BucketLimits limits = RateLimitRule.of(5, 0.001).limits();
        Map<RedisServer, BucketKey> keys = oneKeyPerMaster("noscript");
        keys.values().forEach(key -> store.tryAcquire(key, limits).toCompletableFuture().join());
        String sha = RedisBucketStore.SCRIPT.sha1();
        RedisServer flushed = keys.keySet().iterator().next();
        assertThat(flushed.command("SCRIPT", "FLUSH")).isEqualTo("+OK");
        assertThat(flushed.command("SCRIPT", "EXISTS", sha)).isEqualTo(":0");

        for (BucketKey key : keys.values()) {
            assertThat(store.tryAcquire(key, limits).toCompletableFuture().join().remaining()).isEqualTo(3);
        }
        for (RedisServer master : keys.keySet()) {
            assertThat(master.command("SCRIPT", "EXISTS", sha)).as("on %s", master.port()).isEqualTo(":1");
        }
    }
}
