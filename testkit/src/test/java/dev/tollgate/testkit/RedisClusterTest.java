package dev.tollgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisClusterTest {

    @Test
    void formsThreeMastersWithOneReplicaEachServesKeysOnTheirOwnersAndClosesEveryNode() {
        RedisCluster cluster = RedisCluster.start();
        try (cluster) {
            assertClusterOfThreePlusThree(cluster);
            for (String key : new String[] {"a", "b", "c", "rl:{shop-a}:orders"}) {
                RedisServer owner = cluster.masterOf(key);
                assertThat(owner.command("SET", key, "v")).isEqualTo("+OK");
                RedisServer other = cluster.masters().stream().filter(m -> m != owner).findFirst().orElseThrow();
                assertThat(other.command("GET", key)).startsWith("-MOVED " + cluster.slotOf(key));
            }
        }
        assertThat(cluster.nodes()).noneMatch(RedisServer::isAlive);
    }

    @Test
    void formsByHandWithTheEmbeddedRedis62WhichHasNoRedisCli() {
        try (RedisCluster cluster = RedisCluster.start(RedisBinary.embedded())) {
            assertClusterOfThreePlusThree(cluster);
        }
    }

    @Test
    void aReplicaTakesOverFromAKilledMaster() {
        try (RedisCluster cluster = RedisCluster.start()) {
            String key = "failover-key";
            RedisServer killed = cluster.killMasterOf(key);
            assertThat(killed.isAlive()).isFalse();

            RedisServer promoted = cluster.awaitLiveMasterOf(key, Duration.ofSeconds(20));
            assertThat(promoted).isNotSameAs(killed);
            assertThat(promoted.isAlive()).isTrue();
            assertThat(promoted.command("SET", key, "v")).isEqualTo("+OK");
            assertThat(cluster.masters()).hasSize(3).doesNotContain(killed);
            assertThat(cluster.replicas()).hasSize(2);
        }
    }

    private static void assertClusterOfThreePlusThree(RedisCluster cluster) {
        assertThat(cluster.nodes()).hasSize(6);
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.replicas()).hasSize(3);
        assertThat(cluster.uris()).hasSize(6);
        for (RedisServer node : cluster.nodes()) {
            String info = node.command("CLUSTER", "INFO");
            assertThat(info).contains("cluster_state:ok", "cluster_slots_assigned:16384",
                    "cluster_known_nodes:6");
        }
        for (RedisServer replica : cluster.replicas()) {
            assertThat(replica.command("INFO", "replication")).contains("role:slave", "master_link_status:up");
        }
    }
}
