package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Under load from two instances over keys on every master, one master is killed ({@code SIGKILL});
 * its replica takes over. The store must keep answering: errors only for the dead master's keys and
 * only during a bounded window, then the Redis path resumes on the promoted replica (whose script
 * cache is empty: NOSCRIPT recovery). The window is logged (logger {@code measured}) and carried by
 * the assertions' messages; docs/hot-keys-and-cluster.md quotes it.
 *
 * <p>The window is the subject, in real time: it ends when the client has learnt the new topology,
 * which {@link RecommendedClusterClientOptions#defaults()} bounds after the promotion by the adaptive
 * refresh rate limit (1 s), plus a connect timeout (1 s) to the dead node during a refresh and a
 * command timeout (1 s) of a request sent just before. {@link #AFTER_PROMOTION} adds 2 s for a busy
 * 2-core machine (measured: 0.4–1.2 s after the promotion).
 */
class ClusterFailoverTest {

    private static final Duration LOAD = Duration.ofSeconds(10);
    /** Requests answered by the healthy cluster before the kill: every key several times over. */
    private static final int REQUESTS_BEFORE_KILL = 300;
    /** Longest the errors may last after the replica's promotion (see above). */
    private static final Duration AFTER_PROMOTION = Duration.ofSeconds(5);
    private static final Logger MEASURED = LoggerFactory.getLogger("measured");

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

        AtomicLong requested = new AtomicLong();
        CompletableFuture<PacedLoad.Result> load = CompletableFuture.supplyAsync(() -> PacedLoad.run(
                instances, 2, 250, LOAD, (thread, n) -> {
                    requested.incrementAndGet();
                    return keys.get((int) ((thread * 7 + n) % keys.size()));
                }, limits));
        // The load runs on a healthy cluster first (a thread asks for its next key once the last
        // request was answered): 300 requests take 0.3 s at the offered 1,000/s.
        await().atMost(Duration.ofSeconds(5)).until(() -> requested.get() >= REQUESTS_BEFORE_KILL);
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
        long promotedMillis = (promotedAt - killedAt) / 1_000_000;
        long loadEndMillis = (result.startNanos() + result.elapsedNanos() - killedAt) / 1_000_000;
        String figures = String.format(Locale.ROOT, "node timeout %d ms; replica promoted %d ms after the kill; "
                        + "%d requests, %d errors from %d ms to %d ms after the kill (%s); the load ended %d ms "
                        + "after the kill", cluster.nodeTimeout().toMillis(), promotedMillis,
                result.admitted() + result.rejected() + result.errors(), result.errors(), firstErrorMillis,
                lastErrorMillis, causes, loadEndMillis);
        MEASURED.info("[failover] {}", figures);

        assertThat(promoted).as(figures).isNotSameAs(victim);
        // No error before the kill, and only for keys whose slots the dead master served.
        assertThat(failures).as(figures).allMatch(f -> f.atNanos() >= killedAt);
        assertThat(failures).as(figures).allMatch(f -> victimKeys.contains(f.key()));
        // The error window is bounded: over soon after the promotion, and well before the load
        // ends, so the Redis path resumed.
        assertThat(lastErrorMillis).as(figures).isLessThan(promotedMillis + AFTER_PROMOTION.toMillis());
        assertThat(lastErrorMillis).as(figures).isLessThan(loadEndMillis - 2000);
        for (BucketStore instance : instances) {
            assertThat(instance.tryAcquire(victimKey, limits).toCompletableFuture().join().allowed()).isTrue();
        }
        String sha = RedisBucketStore.SCRIPT.sha1();
        assertThat(promoted.command("SCRIPT", "EXISTS", sha)).isEqualTo(":1"); // reloaded after NOSCRIPT
    }
}
