package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/grafana/tollgate.json} queries only metrics the gateway really exports: every metric
 * name in every panel's query appears in {@code /actuator/prometheus} of a running gateway (database
 * source, so the directory's meters exist too, and one of two regions, so the rebalancer's do) that
 * has made a decision and whose rebalancer has run.
 */
class GrafanaDashboardTest {

    private static final Pattern METRIC = Pattern.compile("\\b((?:tollgate|resilience4j)_[a-z0-9_]+)");

    @Test
    void everyMetricTheDashboardQueriesIsExported() throws IOException {
        String dashboard = Files.readString(Path.of("..", "docs", "grafana", "tollgate.json"));
        List<String> queries = JsonPath.read(dashboard, "$.panels[*].targets[*].expr");
        Set<String> queried = new TreeSet<>();
        for (String query : queries) {
            Matcher m = METRIC.matcher(query);
            while (m.find()) {
                queried.add(m.group(1));
            }
        }
        assertThat(queried).as("metrics the dashboard queries").hasSizeGreaterThan(10);

        try (RedisServer redis = RedisServer.start();
             PostgresDatabase postgres = PostgresServer.freshDatabase();
             TestUpstream upstream = new TestUpstream();
             RunningGateway gateway = RunningGateway.start(
                     RegionGateways.properties("eu", postgres, redis, upstream.uri()))) {
            String key = JsonPath.read(gateway.admin("POST", "/admin/tenants/dash/keys", "{}",
                    DatabaseGateways.ADMIN_TOKEN).body(), "$.key");
            // A new key is served once the directory has it (pushed within a second): until then the
            // gateway answers 401 and makes no decision, so the decision counter would not exist yet.
            RegionGateways.awaitKey(key, List.of(gateway));
            for (int i = 0; i < 4; i++) { // the default rule's burst is 3: three admitted, one rejected
                gateway.send("POST", "/orders", key);
            }
            // The rebalancer runs every second here; its meters appear with its first run.
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                    assertThat(exported(gateway)).as("metrics the gateway exports").containsAll(queried));
        }
    }

    private static Set<String> exported(RunningGateway gateway) {
        Set<String> exported = new TreeSet<>();
        for (String line : gateway.management("/actuator/prometheus").body().split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                exported.add(line.split("[{ ]", 2)[0]);
            }
        }
        return exported;
    }
}
