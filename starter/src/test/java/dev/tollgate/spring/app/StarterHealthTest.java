package dev.tollgate.spring.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.FreePort;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Health in an application that adds the starter and Spring Boot's actuator, with DOWN and
 * OUT_OF_SERVICE mapped to 503 and Tollgate's DEGRADED to 200: Redis unreachable makes Tollgate
 * DEGRADED and health stays 200 (no Redis health check of Spring Boot's turns it 503: the starter does
 * not bring Spring Data Redis), and with {@code tollgate.enabled=false} an application without any
 * Redis is UP.
 */
class StarterHealthTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void stop() {
        StarterApplication.stop();
    }

    private static int start(String... extra) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
                "--tollgate.source=static", "--tollgate.redis.startup-wait=0s",
                // Nothing listens there: Redis is down for the whole test.
                "--spring.data.redis.port=" + FreePort.find(),
                "--management.endpoint.health.show-details=always",
                "--management.endpoint.health.status.order=down,out-of-service,degraded,up,unknown",
                "--management.endpoint.health.status.http-mapping.down=503",
                "--management.endpoint.health.status.http-mapping.out-of-service=503",
                "--management.endpoint.health.status.http-mapping.degraded=200"));
        args.addAll(List.of(extra));
        return StarterApplication.start(args.toArray(String[]::new));
    }

    @Test
    void redisDownLeavesHealthDegradedAndHttp200() throws Exception {
        int port = start();
        HttpResponse<String> health = get(port, "/actuator/health");
        assertThat(health.body()).contains("\"rateLimiter\"").contains("DEGRADED").doesNotContain("\"redis\"");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    }

    @Test
    void switchedOffWithoutAnyRedisHealthIsUp() throws Exception {
        int port = start("--tollgate.enabled=false");
        HttpResponse<String> health = get(port, "/actuator/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).endsWith("\"status\":\"UP\"}").doesNotContain("\"redis\"");
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
