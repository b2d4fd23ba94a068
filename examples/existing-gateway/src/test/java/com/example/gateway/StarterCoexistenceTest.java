package com.example.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.spring.filter.TenantHeadersFilter;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * Adding the starter changes no route that did not ask for Tollgate: a route limited by Spring Cloud
 * Gateway's own {@code RedisRateLimiter} keeps it, an application with a {@code @Primary RateLimiter}
 * of its own starts and keeps it, with {@code tollgate.enabled=false} routes that name
 * {@code #{@tollgateRateLimiter}} start and are served unlimited, and routes Tollgate does not limit
 * get their paths and headers through as sent unless the application turns the edge on. Each
 * application is started as its team would, on a real Redis and a real backend, from properties
 * alone (not the example's {@code application.yml}).
 */
class StarterCoexistenceTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String ROUTES = "--spring.cloud.gateway.server.webflux.routes";
    /** The auto-configuration of Spring Cloud Gateway's RedisRateLimiter (not public: named). */
    private static final String SCG_REDIS_RATE_LIMITER =
            "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration";

    private static RedisServer redis;
    private static TestUpstream backend;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        backend = new TestUpstream();
    }

    /**
     * Each test starts on an empty Redis: one test checks that no bucket was written, and the buckets
     * an earlier test left would still be there (they expire a few seconds later).
     */
    @BeforeEach
    void emptyRedis() {
        redis.command("FLUSHALL");
    }

    @AfterAll
    static void stop() {
        backend.close();
        redis.close();
    }

    /** A gateway of its own: who the caller is comes from {@code X-Customer}. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OwnGateway {
        @Bean
        KeyResolver customerKeyResolver() {
            return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Customer"));
        }
    }

    /** The same, with a limiter of its own made the one routes get when they name none. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OwnGatewayWithItsOwnLimiter extends OwnGateway {
        @Bean
        @Primary
        RateLimiter<Object> ownLimiter() {
            return new RateLimiter<>() {
                @Override
                public Mono<Response> isAllowed(String routeId, String id) {
                    return Mono.just(new Response(true, Map.of("X-Own-Limiter", routeId)));
                }

                @Override
                public Map<String, Object> getConfig() {
                    return Map.of();
                }

                @Override
                public Class<Object> getConfigClass() {
                    return Object.class;
                }

                @Override
                public Object newConfig() {
                    return new Object();
                }
            };
        }
    }

    /** A route limited by Tollgate and, with {@code legacy}, one limited by Spring Cloud Gateway's own limiter. */
    private static ConfigurableApplicationContext run(Class<?> application, boolean legacy, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.config.name=starter-coexistence", // not the example's application.yml
                "--server.port=0", "--spring.main.banner-mode=off",
                "--spring.data.redis.port=" + redis.port(),
                "--tollgate.redis.timeout=5s",
                "--tollgate.source=static",
                "--tollgate.global-filter.enabled=false",
                // Tollgate's limit shows as X-RateLimit-Limit: 20, its default rule's capacity.
                ROUTES + "[0].id=orders",
                ROUTES + "[0].uri=" + backend.uri(),
                ROUTES + "[0].predicates[0]=Path=/orders/**",
                ROUTES + "[0].filters[0].name=RequestRateLimiter",
                ROUTES + "[0].filters[0].args[rate-limiter]=#{@tollgateRateLimiter}",
                ROUTES + "[0].filters[0].args[key-resolver]=#{@customerKeyResolver}"));
        if (legacy) {
            // Naming no limiter, with Spring Cloud Gateway's RedisRateLimiter's arguments.
            args.addAll(List.of(
                    ROUTES + "[1].id=legacy",
                    ROUTES + "[1].uri=" + backend.uri(),
                    ROUTES + "[1].predicates[0]=Path=/legacy/**",
                    ROUTES + "[1].filters[0].name=RequestRateLimiter",
                    ROUTES + "[1].filters[0].args[redis-rate-limiter.replenishRate]=1",
                    ROUTES + "[1].filters[0].args[redis-rate-limiter.burstCapacity]=2",
                    ROUTES + "[1].filters[0].args[key-resolver]=#{@customerKeyResolver}"));
        }
        args.addAll(List.of(extra));
        return new SpringApplicationBuilder(application).run(args.toArray(String[]::new));
    }

    @Test
    void aRouteOfSpringCloudGatewaysRedisRateLimiterKeepsIt() throws Exception {
        try (ConfigurableApplicationContext app = run(OwnGateway.class, true)) {
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                HttpResponse<String> response = get(port(app), "/legacy/1", "acme");
                statuses.add(response.statusCode());
                assertThat(response.headers().firstValue("X-RateLimit-Limit")).as("Tollgate's header").isEmpty();
                assertThat(response.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("2");
            }
            // A burst of 2 refilled at 1/s: six requests in well under two seconds admit 2 or 3.
            assertThat(statuses.stream().filter(s -> s == 200).count()).isBetween(2L, 3L);
            assertThat(statuses).contains(429);

            HttpResponse<String> tollgate = get(port(app), "/orders/1", "acme");
            assertThat(tollgate.statusCode()).isEqualTo(200);
            assertThat(tollgate.headers().firstValue("X-RateLimit-Limit")).hasValue("20");
        }
    }

    @Test
    void anApplicationWithItsOwnPrimaryRateLimiterStartsAndKeepsIt() throws Exception {
        try (ConfigurableApplicationContext app = run(OwnGatewayWithItsOwnLimiter.class, true)) {
            HttpResponse<String> own = get(port(app), "/legacy/1", "acme");
            assertThat(own.statusCode()).isEqualTo(200);
            assertThat(own.headers().firstValue("X-Own-Limiter")).hasValue("legacy");
            assertThat(own.headers().firstValue("X-RateLimit-Limit")).isEmpty();

            HttpResponse<String> tollgate = get(port(app), "/orders/1", "acme");
            assertThat(tollgate.headers().firstValue("X-Own-Limiter")).isEmpty();
            assertThat(tollgate.headers().firstValue("X-RateLimit-Limit")).hasValue("20");
        }
    }

    @Test
    void withTheLimiterOffRoutesThatNameTollgatesStartAndAreServedUnlimited() throws Exception {
        try (ConfigurableApplicationContext app = run(OwnGateway.class, true, "--tollgate.enabled=false",
                "--tollgate.default-rule.capacity=1", "--tollgate.default-rule.refill-per-second=0.001")) {
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> response = get(port(app), "/orders/1", "acme");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("X-RateLimit-Limit")).isEmpty();
                assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
            }
            assertThat(redis.command("KEYS", "rl:{acme}*")).isEmpty();
        }
    }

    @Test
    void whereTollgatesIsTheOnlyLimiterRequestRateLimiterExistsAndNamesIt() throws Exception {
        for (String enabled : List.of("true", "false")) {
            try (ConfigurableApplicationContext app = run(OwnGateway.class, false, "--tollgate.enabled=" + enabled,
                    "--spring.autoconfigure.exclude=" + SCG_REDIS_RATE_LIMITER)) {
                assertThat(app.getBeansOfType(RateLimiter.class).keySet()).containsExactly("tollgateRateLimiter");
                HttpResponse<String> response = get(port(app), "/orders/1", "acme");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("X-RateLimit-Limit"))
                        .isEqualTo(enabled.equals("true") ? Optional.of("20") : Optional.empty());
            }
        }
    }

    /** {@code extra}, and a route Tollgate does not limit. */
    private static String[] withOpenRoute(String... extra) {
        List<String> all = new ArrayList<>(List.of(
                ROUTES + "[2].id=open",
                ROUTES + "[2].uri=" + backend.uri(),
                ROUTES + "[2].predicates[0]=Path=/open/**"));
        all.addAll(List.of(extra));
        return all.toArray(String[]::new);
    }

    @Test
    void routesTollgateDoesNotLimitReachTheBackendAsSentWhenItLimitsOnlyChosenRoutesOrIsOff() throws Exception {
        for (String enabled : List.of("true", "false")) {
            try (ConfigurableApplicationContext app = run(OwnGateway.class, true,
                    withOpenRoute("--tollgate.enabled=" + enabled))) {
                int before = backend.requests();
                for (String path : List.of("/open/a;jsessionid=1", "/open/a%2Fb", "/open/x/../y")) {
                    HttpResponse<String> response = send(port(app), path,
                            Map.of("X-Api-Key", "secret-of-the-app", "X-Tenant-Id", "as-sent"));
                    assertThat(response.statusCode()).as(enabled + " " + path).isEqualTo(200);
                    TestUpstream.Received received = backend.last();
                    assertThat(received.target()).as(enabled).isEqualTo(path);
                    assertThat(received.header("X-Api-Key")).as(enabled).containsExactly("secret-of-the-app");
                    assertThat(received.header("X-Tenant-Id")).as(enabled).containsExactly("as-sent");
                }
                assertThat(backend.requests() - before).isEqualTo(3);
            }
        }
    }

    @Test
    void theEdgeIsOnWhereTheApplicationAsksForIt() throws Exception {
        try (ConfigurableApplicationContext app = run(OwnGateway.class, true, withOpenRoute(
                "--tollgate.paths.normalize=true", "--tollgate.forwarding.strip-api-key=true"))) {
            assertThat(send(port(app), "/open/a;jsessionid=1", Map.of()).statusCode()).isEqualTo(400);
            assertThat(send(port(app), "/open/x/../y", Map.of("X-Api-Key", "secret-of-the-app")).statusCode())
                    .isEqualTo(200);
            TestUpstream.Received received = backend.last();
            assertThat(received.target()).isEqualTo("/open/y");
            assertThat(received.header("X-Api-Key")).isEmpty();
        }
    }

    @Test
    void requestBodiesHaveNoTimeLimitWhereTheApplicationDidNotAskForOne() throws Exception {
        // The global filter is off (run's default): with the limiter on, Tollgate limits only chosen routes.
        for (String enabled : List.of("true", "false")) {
            try (BodyReadingBackend uploads = new BodyReadingBackend();
                 ConfigurableApplicationContext app = run(OwnGateway.class, false, withUploadRoute(uploads,
                         "--tollgate.enabled=" + enabled, "--tollgate.server.request-read-timeout=300ms"))) {
                // The body pauses for longer than the request-read timeout, as a slow or streamed upload may.
                String answer = postPausingMidBody(port(app), Duration.ofMillis(1000));
                assertThat(answer).as(enabled).startsWith("HTTP/1.1 200").contains("got abcdef");
            }
        }
    }

    @Test
    void requestBodiesAreTimedWhereTheApplicationAsksForIt() throws Exception {
        try (BodyReadingBackend uploads = new BodyReadingBackend();
             ConfigurableApplicationContext app = run(OwnGateway.class, false, withUploadRoute(uploads,
                     "--tollgate.server.request-body-timeout=10s", "--tollgate.server.request-read-timeout=300ms"))) {
            String answer = postPausingMidBody(port(app), Duration.ofSeconds(5));
            assertThat(answer).startsWith("HTTP/1.1 408").contains("urn:tollgate:problem:request-body-timeout");
        }
    }

    @Test
    void noHeadersFilterIsRegisteredWhenThereIsNothingToRewrite() throws Exception {
        try (ConfigurableApplicationContext app = run(OwnGateway.class, false, "--tollgate.forwarding.tenant-header=")) {
            assertThat(app.getBeansOfType(TenantHeadersFilter.class)).isEmpty();
        }
        try (ConfigurableApplicationContext app = run(OwnGateway.class, false, "--tollgate.forwarding.tenant-header=",
                "--tollgate.forwarding.strip-api-key=true")) {
            assertThat(app.getBeansOfType(TenantHeadersFilter.class)).hasSize(1);
        }
    }

    /** {@code extra}, and a route Tollgate does not limit to {@code uploads}. */
    private static String[] withUploadRoute(BodyReadingBackend uploads, String... extra) {
        List<String> all = new ArrayList<>(List.of(
                ROUTES + "[1].id=upload", // after the limited route; run without the legacy one
                ROUTES + "[1].uri=" + uploads.uri(),
                ROUTES + "[1].predicates[0]=Path=/upload/**"));
        all.addAll(List.of(extra));
        return all.toArray(String[]::new);
    }

    /**
     * Sends a POST to {@code /upload/file} whose body pauses for {@code pause} half way, and returns what
     * the gateway answered: during the pause if it gave up on the body, else once the body is whole.
     */
    private static String postPausingMidBody(int port, Duration pause) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /upload/file HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 6\r\n"
                    + "Connection: close\r\n\r\nabc").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            socket.setSoTimeout((int) pause.toMillis()); // the client's pause: waiting for an answer meanwhile
            try {
                int first = in.read();
                if (first >= 0) {
                    answer.write(first);
                }
            } catch (SocketTimeoutException noAnswerDuringThePause) {
                out.write("def".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
            socket.setSoTimeout(10_000);
            answer.write(in.readAllBytes());
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * A backend that answers {@code got <body>} once it has read the whole request body. On event
     * loops of its own: the application closed before it stops Reactor Netty's global loops.
     */
    private static final class BodyReadingBackend implements AutoCloseable {
        private final LoopResources loops = LoopResources.create("body-reading-backend", 1, true);
        private final DisposableServer server = HttpServer.create().runOn(loops).host("127.0.0.1").port(0)
                .handle((request, response) -> request.receive().aggregate().asString().defaultIfEmpty("")
                        .flatMap(body -> response.sendString(Mono.just("got " + body)).then()))
                .bindNow();

        String uri() {
            return "http://127.0.0.1:" + server.port();
        }

        @Override
        public void close() {
            server.disposeNow();
            loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10));
        }
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getRequiredProperty("local.server.port"));
    }

    private static HttpResponse<String> send(int port, String rawPath, Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + rawPath))
                .timeout(Duration.ofSeconds(10));
        headers.forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
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
