package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gateway's health as a load balancer or a Kubernetes probe reads it, with the shipped settings:
 * DOWN and OUT_OF_SERVICE answer 503 (the instance must be taken out), DEGRADED answers 200 (it still
 * limits, on its fallback or its last rules); and whoever reaches the management port sees each
 * component's status, never its details (error text with addresses, folder paths, disk figures):
 * those are the admin's, at {@code /admin/health}.
 */
class HealthStatusTest {

    private static final String ADMIN_TOKEN = "health-status-admin-token";

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static Map<String, Object> asShipped() {
        Map<String, Object> properties = new HashMap<>();
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.put("tollgate.source", "static");
        properties.put(RunningGateway.HEALTH_DETAILS, RunningGateway.AS_SHIPPED);
        return properties;
    }

    @Test
    void aDownContributorAnswers503() {
        Map<String, Object> properties = asShipped();
        // More free space than any disk has: Spring Boot's disk-space contributor says DOWN.
        properties.put("management.health.diskspace.threshold", "100000GB");
        try (RunningGateway gateway = RunningGateway.start(properties)) {
            HttpResponse<String> health = gateway.management("/actuator/health");
            assertThat(JsonPath.<String>read(health.body(), "$.status")).isEqualTo("DOWN");
            assertThat(JsonPath.<String>read(health.body(), "$.components.diskSpace.status")).isEqualTo("DOWN");
            assertThat(health.statusCode()).isEqualTo(503);
        }
    }

    @Test
    void degradedAnswers200AndNoDetailsAreShownToAnonymousCallers() {
        int nothingListens = FreePort.find();
        Map<String, Object> properties = asShipped();
        properties.put("tollgate.source", "database");
        properties.put("spring.datasource.url", "jdbc:postgresql://127.0.0.1:" + nothingListens + "/tollgate");
        properties.put("tollgate.directory.initial-load-timeout", "100ms");
        properties.put("tollgate.admin.token", ADMIN_TOKEN);
        try (RunningGateway gateway = RunningGateway.start(properties)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> JsonPath.<String>read(
                    gateway.management("/actuator/health").body(), "$.components.directory.status").equals("DEGRADED"));
            HttpResponse<String> health = gateway.management("/actuator/health");
            assertThat(JsonPath.<String>read(health.body(), "$.status")).isEqualTo("DEGRADED");
            assertThat(health.statusCode()).isEqualTo(200);

            String localState = gateway.context().getEnvironment().getRequiredProperty(RunningGateway.LOCAL_STATE);
            assertThat(health.body())
                    .contains("\"rateLimiter\":{\"status\":\"UP\"}")
                    .doesNotContain("details")
                    .doesNotContain(Integer.toString(nothingListens))
                    .doesNotContain("127.0.0.1")
                    .doesNotContain(localState)
                    .doesNotContainIgnoringCase("connection")
                    .doesNotContain("free");

            // The details are the admin's, behind the admin token.
            assertThat(gateway.admin("GET", "/admin/health", null, null).statusCode()).isEqualTo(401);
            HttpResponse<String> details = gateway.admin("GET", "/admin/health", null, ADMIN_TOKEN);
            assertThat(details.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<String>read(details.body(), "$.status")).isEqualTo("DEGRADED");
            assertThat(JsonPath.<String>read(details.body(), "$.components.directory.details.snapshotFile"))
                    .startsWith(localState);
            assertThat(JsonPath.<String>read(details.body(), "$.components.rateLimiter.details.mode"))
                    .isEqualTo("redis");
        }
    }
}
