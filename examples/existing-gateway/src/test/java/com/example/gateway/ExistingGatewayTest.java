package com.example.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example application started as its team would run it, with a real Redis and a real backend:
 * Tollgate limits the {@code orders} route through Spring Cloud Gateway's {@code RequestRateLimiter}
 * with the application's own {@code KeyResolver}, answers with Tollgate's headers and
 * {@code Retry-After}, leaves the other route alone, and keeps deciding when Redis goes away.
 */
class ExistingGatewayTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static TestUpstream backend;

    @BeforeAll
    static void startBackend() {
        backend = new TestUpstream();
    }

    @AfterAll
    static void stopBackend() {
        backend.close();
    }

    private static ConfigurableApplicationContext start(RedisServer redis) {
        return new SpringApplicationBuilder(ExistingGatewayApplication.class).run(
                "--server.port=0", "--spring.main.banner-mode=off",
                "--spring.data.redis.port=" + redis.port(),
                // Exact counts below: every decision by Redis, none cut off on a busy machine (a request
                // cut off after Redis took its token would be charged twice). The fallback is driven by
                // stopping Redis, whose calls then fail at once.
                "--tollgate.redis.timeout=5s",
                "--orders.uri=" + backend.uri());
    }

    @Test
    void theLimitedRouteAnswersWithTollgatesHeadersAndRetryAfter() throws Exception {
        try (RedisServer redis = RedisServer.start(); ConfigurableApplicationContext app = start(redis)) {
            int port = port(app);
            int before = backend.requests();
            for (int i = 1; i <= 3; i++) {
                HttpResponse<String> ok = get(port, "/orders/42", "acme");
                assertThat(ok.statusCode()).isEqualTo(200);
                assertThat(ok.headers().firstValue("X-RateLimit-Limit")).hasValue("3");
                assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(3 - i));
                assertThat(ok.headers().firstValue("RateLimit-Policy")).hasValue("\"orders\";q=3;w=3");
            }
            HttpResponse<String> limited = get(port, "/orders/42", "acme");
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(limited.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(backend.requests() - before).as("requests that reached the backend").isEqualTo(3);

            // Another customer has a bucket of its own (the default rule), untouched by acme's.
            HttpResponse<String> other = get(port, "/orders/42", "globex");
            assertThat(other.statusCode()).isEqualTo(200);
            assertThat(other.headers().firstValue("X-RateLimit-Remaining")).hasValue("19");

            // No key from the KeyResolver: the filter's own deny-empty-key answer.
            assertThat(get(port, "/orders/42", null).statusCode()).isEqualTo(403);
        }
    }

    @Test
    void routesWithoutTheFilterAreNotLimited() throws Exception {
        try (RedisServer redis = RedisServer.start(); ConfigurableApplicationContext app = start(redis)) {
            for (int i = 0; i < 30; i++) {
                HttpResponse<String> r = get(port(app), "/status", "acme");
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("X-RateLimit-Limit")).isEmpty();
            }
        }
    }

    @Test
    void withRedisGoneTheLocalFallbackKeepsDeciding() throws Exception {
        RedisServer redis = RedisServer.start();
        try (ConfigurableApplicationContext app = start(redis)) {
            int port = port(app);
            assertThat(get(port, "/orders/1", "initech").statusCode()).isEqualTo(200);
            redis.close();
            for (int i = 0; i < 15; i++) {
                HttpResponse<String> r = get(port, "/orders/1", "initech");
                assertThat(r.statusCode()).as("answered, never 5xx").isIn(200, 429);
                assertThat(r.headers().firstValue("X-RateLimit-Limit")).hasValue("20");
            }
            assertThat(app.getBean(DecisionMetrics.class).count(DecisionSource.LOCAL_FALLBACK)).isGreaterThan(0);
        } finally {
            redis.close();
        }
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getRequiredProperty("local.server.port"));
    }

    private static HttpResponse<String> get(int port, String path, String customer)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (customer != null) {
            request.header("X-Customer", customer);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
