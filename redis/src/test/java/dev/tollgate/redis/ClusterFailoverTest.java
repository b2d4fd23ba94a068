package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.testkit.RedisCluster;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Under load from two instances over keys on every master, one master is killed ({@code SIGKILL});
 * its replica takes over. The store must keep answering: errors only for the dead master's keys and
 * only during a bounded window, then the Redis path resumes on the promoted replica (whose script
 * cache is empty: NOSCRIPT recovery). The window is printed; docs/hot-keys-and-cluster.md quotes it.
 */
class ClusterFailoverTest {

    private static final Duration LOAD = Duration.ofSeconds(10);
    private static final long KILL_AFTER_MILLIS = 1500;

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
    void afterAMasterIsKilledItsReplicaTakesOverAndTheStoreRecovers() throws Exception {
        List<BucketStore> instances = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RedisClusterClient client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
            client.setOptions(RecommendedClusterClientOptions.defaults().toClientOptions());
            clients.add(client);
            instances.add(RedisBucketStore.on(client.connect()));
        }
        List<BucketKey> keys = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            keys.add(new BucketKey("failover-" + i, "orders"));
        }
        BucketKey victimKey = keys.get(0);
        RedisServer victim = cluster.masterOf(victimKey.redisKey());
        List<BucketKey> victimKeys = keys.stream()
                .filter(k -> cluster.masterOf(k.redisKey()) == victim).toList();
        BucketLimits limits = RateLimitRule.of(1_000_000, 1_000_000).limits(); // never the limit here

        CompletableFuture<PacedLoad.Result> load = CompletableFuture.supplyAsync(() -> PacedLoad.run(
                instances, 2, 250, LOAD, (thread, n) -> keys.get((int) ((thread * 7 + n) % keys.size())), limits));
        Thread.sleep(KILL_AFTER_MILLIS); // let the load run on a healthy cluster first
        long killedAt = System.nanoTime();
        cluster.killMasterOf(victimKey.redisKey());
        RedisServer promoted = cluster.awaitLiveMasterOf(victimKey.redisKey(), Duration.ofSeconds(20));
        long promotedAt = System.nanoTime();
        PacedLoad.Result result = load.get();

        List<PacedLoad.Failure> failures = result.failures();
        long lastErrorMillis = failures.stream().mapToLong(f -> (f.atNanos() - killedAt) / 1_000_000).max().orElse(0);
        long firstErrorMillis = failures.stream().mapToLong(f -> (f.atNanos() - killedAt) / 1_000_000).min().orElse(0);
        Map<String, Long> causes = failures.stream().collect(Collectors.groupingBy(
                f -> f.error().getCause() == null ? f.error().getClass().getSimpleName()
                        : f.error().getCause().getClass().getSimpleName(), Collectors.counting()));
        System.out.printf("[failover] node timeout %d ms; replica promoted %d ms after the kill; %d requests, "
                        + "%d errors from %d ms to %d ms after the kill (%s), all on the killed master's keys: %s%n",
                cluster.nodeTimeout().toMillis(), (promotedAt - killedAt) / 1_000_000,
                result.admitted() + result.rejected() + result.errors(), result.errors(), firstErrorMillis,
                lastErrorMillis, causes, failures.stream().allMatch(f -> victimKeys.contains(f.key())));

        assertThat(promoted).isNotSameAs(victim);
        // No error before the kill, and only for keys whose slots the dead master served.
        assertThat(failures).allMatch(f -> f.atNanos() >= killedAt);
        assertThat(failures).allMatch(f -> victimKeys.contains(f.key()));
        // The error window is bounded: over well before the load ends, so the Redis path resumed.
        long loadEndMillis = (result.startNanos() + result.elapsedNanos() - killedAt) / 1_000_000;
        assertThat(lastErrorMillis).isLessThan(loadEndMillis - 2000);
        assertThat(lastErrorMillis).isLessThan(8000);
        for (BucketStore instance : instances) {
            assertThat(instance.tryAcquire(victimKey, limits).toCompletableFuture().join().allowed()).isTrue();
        }
        String sha = RedisBucketStore.SCRIPT.sha1();
        assertThat(promoted.command("SCRIPT", "EXISTS", sha)).isEqualTo(":1"); // reloaded after NOSCRIPT
    }
}
