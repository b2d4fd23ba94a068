package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketRequest;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.ShardedBucketStore;
import dev.tollgate.testkit.RedisCluster;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three instances (each its own cluster client) hammer one tenant whose rule is split into 6 shards
 * spread over a real 3-master cluster, at twice the rule's rate: never more than the rule allows,
 * and once the burst is spent the admitted rate is within 5 % of the rule's.
 */
class ShardedClusterAccuracyTest {

    private static final int INSTANCES = 3;
    private static final int SHARDS = 6;

    private static RedisCluster cluster;
    private static final List<RedisClusterClient> clients = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        clients.forEach(RedisClusterClient::shutdown);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shardedInstancesAdmitTheRuleWithinFivePercent() {
        List<BucketStore> instances = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            RedisClusterClient client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
            client.setOptions(RecommendedClusterClientOptions.defaults().toClientOptions());
            clients.add(client);
            ShardedBucketStore sharded = new ShardedBucketStore(RedisBucketStore.on(client.connect()), true);
            instances.add((k, l) -> sharded.tryAcquire(new BucketRequest(k, l, SHARDS)));
        }
        BucketKey key = new BucketKey("sharded-accuracy", "orders");
        Set<RedisServer> owners = new HashSet<>();
        for (int i = 0; i < SHARDS; i++) {
            owners.add(cluster.masterOf(key.shard(i).redisKey()));
        }
        BucketLimits limits = RateLimitRule.of(300, 1500).limits();

        PacedLoad.Result result = PacedLoad.run(instances, 2, 500, Duration.ofSeconds(3), (t, n) -> key, limits);

        double allowed = 300 + 1500 * result.refillSeconds();
        double steadyRate = result.admittedPerSecond(0.5, 3.0);
        System.out.printf("[accuracy] shards: %d instances, %d shards on %d masters, %.2f s of refill, admitted %d, "
                        + "rejected %d, errors %d; rule allows %.0f (admitted/allowed %.4f); steady admitted rate "
                        + "%.0f/s for a rule of 1500/s (%+.2f %%)%n",
                INSTANCES, SHARDS, owners.size(), result.refillSeconds(), result.admitted(), result.rejected(),
                result.errors(), allowed, result.admitted() / allowed, steadyRate, 100 * (steadyRate / 1500 - 1));
        assertThat(owners).hasSizeGreaterThan(1);
        assertThat(result.errors()).isZero();
        assertThat((double) result.admitted()).isLessThanOrEqualTo(allowed);
        assertThat(steadyRate).isBetween(1425d, 1575d);
    }
}
