package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Clients that hold connections without finishing a request, and requests whose host is ambiguous.
 * The timeouts are Netty's own timers on the real clock, so these tests wait in real time: a second or
 * two each, with margins well above the configured limits.
 */
@MeasuresWaits
class ClientConnectionTest {

    private static final Duration IDLE_TIMEOUT = Duration.ofMillis(1500);
    private static final Duration REQUEST_READ_TIMEOUT = Duration.ofMillis(500);

    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
        Map<String, Object> p = new HashMap<>();
        p.put("tollgate.source", "static");
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.redis.timeout", "5s");
        p.put("tollgate.default-rule.capacity", "1000");
        p.put("tollgate.server.idle-timeout", IDLE_TIMEOUT.toMillis() + "ms");
        p.put("tollgate.server.request-read-timeout", REQUEST_READ_TIMEOUT.toMillis() + "ms");
        p.putAll(RunningGateway.route(0, "catalog", "GET", "/catalog/**", upstream.uri()));
        gateway = RunningGateway.start(p);
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(gateway, upstream, redis);
    }

    private static String get(String path, String hostHeaders, String version) {
        return "GET " + path + " " + version + "\r\n" + hostHeaders + "X-Api-Key: conn\r\n\r\n";
    }

    @Test
    void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeout() {
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            long start = System.nanoTime();
            assertThat(http.closedByServer()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(IDLE_TIMEOUT.minusMillis(100));
        }
    }

    @Test
    void aRequestHeadSentAByteAtATimeIsCutOffByTheRequestReadTimeout() {
        // A byte every 100 ms: the idle timeout (1.5 s) never fires, the head never completes.
        String head = "GET /catalog/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: slow\r\nX-Padding: "
                + "x".repeat(200);
        try (RawHttp http = RawHttp.connect(gateway.port(), 100)) {
            long start = System.nanoTime();
            boolean closed = false;
            for (int i = 0; i < head.length() && !closed; i++) {
                try {
                    http.write(head.substring(i, i + 1));
                } catch (java.io.UncheckedIOException broken) {
                    closed = true;
                    break;
                }
                closed = http.closedByServer(); // waits up to 100 ms for the server to close
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(closed).as("closed while the head was still trickling in").isTrue();
            assertThat(took).isGreaterThanOrEqualTo(REQUEST_READ_TIMEOUT.minusMillis(100)).isLessThan(IDLE_TIMEOUT);
        }
    }

    @Test
    void aKeepAliveConnectionServesRequestsWithPausesShorterThanTheIdleTimeout() throws Exception {
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            for (int i = 0; i < 3; i++) {
                http.write(get("/catalog/kept-" + i, "Host: 127.0.0.1\r\n", "HTTP/1.1"));
                assertThat(http.readResponse().status()).isEqualTo(200);
                // Longer than the request-read timeout: it must not be running between requests.
                Thread.sleep(REQUEST_READ_TIMEOUT.multipliedBy(2).toMillis());
            }
        }
    }

    @Test
    void anHttp11RequestWithoutHostIs400() {
        int before = upstream.requests();
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write(get("/catalog/no-host", "", "HTTP/1.1"));
            RawHttp.Response r = http.readResponse();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(r.body()).contains("urn:tollgate:problem:invalid-host");
        }
        assertThat(upstream.requests()).isEqualTo(before);
    }

    @Test
    void aRequestWithTwoHostHeadersIs400() {
        int before = upstream.requests();
        for (String hosts : new String[] {"Host: 127.0.0.1\r\nHost: example.org\r\n",
                "Host: 127.0.0.1\r\nhost: 127.0.0.1\r\n"}) {
            try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
                http.write(get("/catalog/two-hosts", hosts, "HTTP/1.1"));
                RawHttp.Response r = http.readResponse();
                assertThat(r.status()).isEqualTo(400);
                assertThat(r.body()).contains("urn:tollgate:problem:invalid-host");
            }
        }
        assertThat(upstream.requests()).isEqualTo(before);
    }

    @Test
    void aMalformedHostIsRefusedWithoutReachingTheBackend() {
        int before = upstream.requests();
        for (String host : new String[] {"Host: a b\r\n", "Host: a/b\r\n", "Host: [::1\r\n", "Host: a:b:c\r\n"}) {
            try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
                http.write(get("/catalog/bad-host", host, "HTTP/1.1"));
                assertThat(http.readResponse().status()).as(host).isBetween(400, 499);
            }
        }
        assertThat(upstream.requests()).isEqualTo(before);
    }

    @Test
    void anHttp10RequestMayOmitHost() {
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write(get("/catalog/old-client", "", "HTTP/1.0"));
            assertThat(http.readResponse().status()).isEqualTo(200);
        }
    }
}
