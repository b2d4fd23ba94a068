package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.testkit.RedisCluster;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The gateway on a real Redis Cluster (3 masters, 3 replicas), selected by Spring Boot's
 * {@code spring.data.redis.cluster.nodes}: a master killed under load fails over to its replica,
 * no request fails meanwhile (the local fallback answers), and the Redis path resumes.
 */
class RedisClusterGatewayTest {

    @Test
    void aMasterKilledUnderLoad_noRequestFails_andTheRedisPathResumes() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(); TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> p = new HashMap<>();
            p.put("tollgate.source", "static");
            p.put("spring.data.redis.cluster.nodes", cluster.nodes().stream()
                    .map(n -> n.host() + ":" + n.port()).collect(Collectors.joining(",")));
            p.put("tollgate.redis.timeout", "200ms");
            p.put("tollgate.redis.circuit-breaker.wait-in-open-state", "500ms");
            p.put("tollgate.redis.reconnect-max-delay", "200ms");
            p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
            p.put("tollgate.default-rule.capacity", "1000000");
            p.put("tollgate.default-rule.refill-per-second", "1000000");
            // A sharded rule: its sub-buckets spread over the masters.
            p.putAll(RunningGateway.rule(0, "wide", "create-order", 600, 600));
            p.put("tollgate.rules[0].shards", "6");
            try (RunningGateway gateway = RunningGateway.start(p)) {
                DecisionMetrics metrics = gateway.context().getBean(DecisionMetrics.class);
                assertThat(gateway.send("POST", "/orders", "wide").statusCode()).isEqualTo(200);
                assertThat(gateway.send("POST", "/orders", "victim").statusCode()).isEqualTo(200);
                assertThat(metrics.count(DecisionSource.REDIS)).isEqualTo(2);

                GatewayLoad load = GatewayLoad.closedLoop(List.of(gateway), 3, "POST", "/orders", "victim");
                try (GatewayLoad wide = GatewayLoad.closedLoop(List.of(gateway), 1, "POST", "/orders", "wide")) {
                    await().atMost(Duration.ofSeconds(20)).until(() -> load.total() > 200);
                    RedisServer killed = cluster.killMasterOf("rl:{victim}:create-order");
                    long killedAt = System.nanoTime();
                    cluster.awaitLiveMasterOf("rl:{victim}:create-order", Duration.ofSeconds(30));
                    long promotedMillis = (System.nanoTime() - killedAt) / 1_000_000;

                    CircuitBreaker breaker = gateway.context().getBean(CircuitBreaker.class);
                    // The victim is hot: on the Redis path most of its decisions come from leases.
                    double redisBefore = metrics.count(DecisionSource.REDIS) + metrics.count(DecisionSource.LEASE);
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() ->
                            breaker.getState() == CircuitBreaker.State.CLOSED
                                    && metrics.count(DecisionSource.REDIS) + metrics.count(DecisionSource.LEASE)
                                            > redisBefore + 100);
                    String figures = String.format("replica promoted %d ms after the master (port %d) was killed, "
                                    + "Redis path resumed %d ms after the kill", promotedMillis, killed.port(),
                            (System.nanoTime() - killedAt) / 1_000_000);
                    LoggerFactory.getLogger("measured").info("[cluster] {}", figures);
                    Map<Integer, Integer> statuses = load.stop(Duration.ofSeconds(10));
                    Map<Integer, Integer> wideStatuses = wide.stop(Duration.ofSeconds(10));
                    assertThat(statuses).as("victim: status -> count; " + figures).containsOnlyKeys(200);
                    assertThat(wideStatuses).as("sharded tenant: status -> count; " + figures)
                            .doesNotContainKeys(0, 500, 502, 503);
                }
            }
        }
    }
}
