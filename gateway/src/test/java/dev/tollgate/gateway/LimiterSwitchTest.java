package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;


import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code tollgate.enabled=false} turns the limiter off and nothing else: requests are routed as
 * usual, none is limited, no bucket is written, and neither rules nor keys are read (so no database
 * is needed). The benchmark uses it as its no-limiter baseline.
 */
class LimiterSwitchTest {

    private static final String ADMIN_TOKEN = "limiter-switch-admin-token";

    /** A gateway on {@code redis} with the static source and one route to {@code upstream}. */
    private static Map<String, Object> properties(RedisServer redis, TestUpstream upstream) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("tollgate.source", "static");
        properties.put("spring.data.redis.host", redis.host());
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.putAll(RunningGateway.route(0, "catalog", "GET", "/catalog/**", upstream.uri()));
        return properties;
    }

    @Test
    void withTheSwitchOffEveryRequestIsForwardedUnlimited() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> properties = properties(redis, upstream);
            properties.put("tollgate.default-rule.capacity", "1");
            properties.put("tollgate.default-rule.refill-per-second", "0.001");
            properties.put("tollgate.enabled", "false");
            try (RunningGateway gateway = RunningGateway.start(properties)) {
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> response = gateway.send("GET", "/catalog/x", "shop-a");
                    assertThat(response.statusCode()).isEqualTo(200);
                    assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
                }
                assertThat(upstream.requests()).isEqualTo(3);
                assertThat(redis.command("KEYS", "rl:{shop-a}*")).isEmpty();
            }
        }
    }

    @Test
    void withTheSwitchOffTheDatabaseSourceNeedsNoDatabase() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> properties = properties(redis, upstream);
            properties.put("tollgate.source", "database");
            // Nothing listens there: a gateway that tried to read rules would log failures and report them.
            properties.put("spring.datasource.url", "jdbc:postgresql://127.0.0.1:" + FreePort.find() + "/tollgate");
            properties.put("tollgate.admin.token", ADMIN_TOKEN);
            properties.put("tollgate.enabled", "false");
            try (RunningGateway gateway = RunningGateway.start(properties)) {
                assertThat(gateway.context().getBeansOfType(Directory.class)).isEmpty();
                assertThat(gateway.context().getBeansOfType(DirectoryRefresher.class)).isEmpty();
                assertThat(gateway.send("GET", "/catalog/x", "shop-a").statusCode()).isEqualTo(200);

                HttpResponse<String> readiness = gateway.management("/actuator/health/readiness");
                assertThat(readiness.statusCode()).isEqualTo(200);
                assertThat(readiness.body()).contains("\"status\":\"UP\"");
                HttpResponse<String> health = gateway.management("/actuator/health");
                assertThat(health.body()).doesNotContain("directory");

                HttpResponse<String> admin = gateway.admin("GET", "/admin/rules", null, ADMIN_TOKEN);
                assertThat(admin.statusCode()).isEqualTo(404);
                assertThat(admin.body()).contains("tollgate.enabled=false");
            }
        }
    }

    @Test
    void aGatewayWithTheSwitchOffIsNotCountedAmongTheInstancesThatShareTheLimit() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> properties = properties(redis, upstream);
            properties.put("tollgate.fallback.heartbeat-interval", "100ms");
            properties.put("tollgate.fallback.heartbeat-ttl", "1s");
            Map<String, Object> off = new HashMap<>(properties);
            off.put("tollgate.enabled", "false");
            try (RunningGateway switchedOff = RunningGateway.start(off)) {
                assertThat(switchedOff.context().getBeansOfType(LiveInstances.class)).isEmpty();
                try (RunningGateway limiting = RunningGateway.start(properties)) {
                    LiveInstances instances = limiting.context().getBean(LiveInstances.class);
                    await().atMost(Duration.ofSeconds(10)).until(instances::isLearnt);
                    // The switched-off gateway has been up for this one's whole start (seconds, i.e.
                    // dozens of its 100 ms heartbeat intervals): had it beaten, this one's beats would
                    // count it, the first as well as the next few.
                    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                            .until(() -> instances.count() == 1);
                    assertThat(redis.command("ZCARD", "tollgate:instances")).isEqualTo(":1");
                }
            }
        }
    }
}
