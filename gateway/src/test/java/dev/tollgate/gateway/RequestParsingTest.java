package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tollgate.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * Requests the gateway cannot take as sent: bodies that fail to parse or take too long (the backend
 * must never receive them as complete requests), heads that cannot be parsed (problem+json answers,
 * logged at a bounded rate with control characters escaped), repeated API keys, and header spellings a
 * backend would merge with the gateway's own. Timeouts are short and configured here; Netty's timers
 * run on the real clock, so the timeout tests wait a second or two.
 */
@MeasuresWaits
class RequestParsingTest {

    private static final Duration BODY_TIMEOUT = Duration.ofMillis(1200);
    private static final Duration REQUEST_READ_TIMEOUT = Duration.ofMillis(600);

    private static RedisServer redis;
    private static RecordingBackend backend;
    private static RunningGateway gateway;

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        backend = new RecordingBackend();
        Map<String, Object> p = new HashMap<>();
        p.put("tollgate.source", "static");
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.redis.timeout", "5s");
        p.put("tollgate.default-rule.capacity", "1000");
        p.put("tollgate.default-rule.refill-per-second", "0.001");
        p.put("tollgate.server.request-read-timeout", REQUEST_READ_TIMEOUT.toMillis() + "ms");
        p.put("tollgate.server.request-body-timeout", BODY_TIMEOUT.toMillis() + "ms");
        p.put("tollgate.logging.malformed-requests-per-second", "2");
        p.putAll(RunningGateway.route(0, "upload", "POST", "/upload/**", backend.uri()));
        p.putAll(RunningGateway.route(1, "catalog", "GET", "/catalog/**", backend.uri()));
        gateway = RunningGateway.start(p);
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(gateway, backend, redis);
    }

    @BeforeEach
    void captureLogs() {
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
    }

    private static String chunkedPost(String target, String apiKey) {
        return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + apiKey
                + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    }

    private static void assertProblem(RawHttp.Response response, int status, String type) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(response.body()).contains("\"type\":\"urn:tollgate:problem:" + type + "\"");
    }

    private List<ILoggingEvent> events(String loggerPrefix) {
        return logs.list.stream().filter(e -> e.getLoggerName().startsWith(loggerPrefix)).toList();
    }

    /**
     * Checks that the request to {@code target} never ends as complete at the backend: a sentinel
     * request sent through the gateway after it is awaited first, so that whatever of the bad request
     * was on its way has had the time to arrive (the backend handles both on its one event loop).
     */
    private static void assertNeverCompleted(String target) {
        String sentinel = "/catalog/sentinel-after" + target.replace('/', '-');
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write("GET " + sentinel + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: sentinel\r\nConnection: close\r\n\r\n");
            assertThat(http.readResponse().status()).isEqualTo(200);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> backend.outcome(sentinel) != null);
        String outcome = backend.outcome(target);
        assertThat(outcome == null || outcome.startsWith("aborted")).as(String.valueOf(outcome)).isTrue();
    }

    @Test
    void aBadChunkSentWithTheHeadNeverReachesTheBackendAsACompleteRequest() {
        RawHttp.Response response;
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write(chunkedPost("/upload/at-once", "chunks") + "5\r\nhello\r\nzz\r\n");
            response = http.readResponse();
            assertThat(http.closedByServer()).isTrue();
        }
        assertNeverCompleted("/upload/at-once");
        assertProblem(response, 400, "malformed-request");
        assertThat(events("org.springframework.web")).as("no 500 logged").isEmpty();
    }

    @Test
    void aBadChunkAfterTheForwardingBeganCutsTheBackendsRequest() throws Exception {
        RawHttp.Response response;
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write(chunkedPost("/upload/later", "chunks-later") + "5\r\nhello\r\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> backend.started("/upload/later"));
            http.write("zz\r\n");
            response = http.readResponse();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> backend.outcome("/upload/later") != null);
        assertThat(backend.outcome("/upload/later")).startsWith("aborted");
        assertProblem(response, 400, "malformed-request");
        // The decision was taken on the request's head, before its body: the token is spent.
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write("POST /upload/after HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: chunks-later\r\nContent-Length: 0\r\n\r\n");
            assertThat(http.readResponse().header("X-RateLimit-Remaining")).isEqualTo("998");
        }
    }

    @Test
    void aWellFormedChunkedBodyStillArrivesWhole() {
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write(chunkedPost("/upload/fine", "fine") + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
            assertThat(http.readResponse().status()).isEqualTo(200);
        }
        assertThat(backend.outcome("/upload/fine")).isEqualTo("complete hello world");
    }

    @Test
    void aBodyTrickledSteadilyIsCutAtTheBodyTimeout() throws Exception {
        long start = System.nanoTime();
        RawHttp.Response response = null;
        try (RawHttp http = RawHttp.connect(gateway.port(), 100)) {
            http.write("POST /upload/trickle HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: slow\r\nContent-Length: 1000\r\n\r\n");
            // A byte every 100 ms: never a pause as long as the request-read timeout.
            for (int i = 0; i < 100 && response == null; i++) {
                try {
                    http.write("x");
                } catch (java.io.UncheckedIOException closed) {
                    break;
                }
                try {
                    response = http.readResponse();
                } catch (java.io.UncheckedIOException nothingYet) {
                    // no answer within 100 ms
                }
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(response).as("answered while the body was still trickling in").isNotNull();
        assertProblem(response, 408, "request-body-timeout");
        assertThat(took).isGreaterThanOrEqualTo(BODY_TIMEOUT.minusMillis(100)).isLessThan(BODY_TIMEOUT.multipliedBy(4));
        await().atMost(Duration.ofSeconds(10)).until(() -> backend.outcome("/upload/trickle") != null);
        assertThat(backend.outcome("/upload/trickle")).startsWith("aborted");
    }

    @Test
    void aBodyThatPausesLongerThanTheRequestReadTimeoutIsCut() {
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write("POST /upload/paused HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: paused\r\nContent-Length: 10\r\n\r\nabc");
            long start = System.nanoTime();
            assertProblem(http.readResponse(), 408, "request-body-timeout");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(REQUEST_READ_TIMEOUT.minusMillis(100))
                    .isLessThan(BODY_TIMEOUT);
            assertThat(http.closedByServer()).isTrue();
        }
        assertThat(events("org.springframework")).as("no 500 logged").isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> backend.outcome("/upload/paused") != null);
        assertThat(backend.outcome("/upload/paused")).startsWith("aborted");
    }

    @Test
    void unparseableHeadsGetProblemJsonAndNoReactorNettyWarning() {
        Map<String, String> requests = Map.of(
                "GET /catalog/a b HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: heads\r\n\r\n", "malformed-request",
                "GET /catalog/a\tb HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: heads\r\n\r\n", "malformed-request",
                "GET /catalog/a\u0001b HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: heads\r\n\r\n", "invalid-path",
                "GET /catalog/a\\b HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: heads\r\n\r\n", "invalid-path",
                "GET /catalog/a?q=\u007f HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: heads\r\n\r\n", "invalid-path",
                "GET /catalog/a HTTP/1.1\r\nHost: a:b:c\r\nX-Api-Key: heads\r\n\r\n", "invalid-host",
                "GET /catalog/a HTTP/1.1\r\nHost: a:\r\nX-Api-Key: heads\r\n\r\n", "invalid-host",
                "GET /catalog/a HTTP/1.1\r\nHost: a:99999999999\r\nX-Api-Key: heads\r\n\r\n", "invalid-host");
        int before = backend.count();
        requests.forEach((request, type) -> {
            try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
                http.write(request);
                assertProblem(http.readResponse(), 400, type);
            }
        });
        assertThat(backend.count()).isEqualTo(before);
        assertThat(events("reactor.netty")).as("Reactor Netty's own warnings").isEmpty();
    }

    @Test
    void unparseableRequestsAreLoggedAtABoundedRateWithControlCharactersEscaped() {
        long start = System.nanoTime();
        int sent = 0;
        // At least 40, and on until a line has said how many were left out (a second at most: 2 lines a second).
        while (sent < 40 || (leftOutReported() == 0 && System.nanoTime() - start < 5_000_000_000L)) {
            try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
                http.write("GET /a b\u0001\u001b[31mFORGED HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                assertThat(http.readResponse().status()).isEqualTo(400);
            }
            sent++;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        List<ILoggingEvent> lines = events("dev.tollgate.spring.edge.MalformedRequestLog");
        assertThat(leftOutReported()).isPositive();
        assertThat((double) lines.size()).as("%d lines for %d requests in %.1f s", lines.size(), sent, seconds)
                .isLessThanOrEqualTo(2 + 2 * seconds + 1);
        assertThat(lines).anySatisfy(line -> assertThat(line.getFormattedMessage()).contains("\\x01\\x1b[31MFORGED"));
        for (ILoggingEvent line : lines) {
            assertThat(line.getLevel()).isEqualTo(ch.qos.logback.classic.Level.INFO);
            assertThat(line.getFormattedMessage()).doesNotContain("\u0001", "\u001b", "\r", "\n");
        }
        assertThat(events("reactor.netty")).isEmpty();
    }

    /** How many lines the malformed-request log said it left out, in all. */
    private long leftOutReported() {
        return events("dev.tollgate.spring.edge.MalformedRequestLog").stream()
                .map(ILoggingEvent::getFormattedMessage)
                .map(m -> java.util.regex.Pattern.compile("\\((\\d+) similar lines left out\\)").matcher(m))
                .filter(java.util.regex.Matcher::find)
                .mapToLong(m -> Long.parseLong(m.group(1)))
                .sum();
    }

    @Test
    void aRepeatedApiKeyIs400() {
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write("GET /catalog/twice HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: one\r\nx-api-key: two\r\n"
                    + "Connection: close\r\n\r\n");
            assertProblem(http.readResponse(), 400, "repeated-api-key");
        }
        assertThat(backend.outcome("/catalog/twice")).isNull();
    }

    @Test
    void underscoredSpellingsOfTheTenantAndKeyHeadersNeverReachTheBackend() {
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write("GET /catalog/spelled HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: spelled\r\n"
                    + "X_Tenant_Id: shop-a\r\nx_tenant-id: shop-b\r\nX_Api_Key: other\r\nConnection: close\r\n\r\n");
            assertThat(http.readResponse().status()).isEqualTo(200);
        }
        Map<String, List<String>> headers = backend.headers("/catalog/spelled");
        assertThat(headers.keySet()).noneMatch(name -> name.replace('_', '-').equalsIgnoreCase("X-Tenant-Id")
                && !name.equals("X-Tenant-Id"));
        assertThat(headers.keySet()).noneMatch(name -> name.replace('_', '-').equalsIgnoreCase("X-Api-Key"));
        assertThat(headers.get("X-Tenant-Id")).containsExactly("spelled");
    }

    @Test
    void aTenantThatIsNotPrintableAsciiIsPercentEncodedForTheBackend() {
        // The static source takes the key as the tenant: a Latin-1 byte in it (é) makes a tenant id
        // that a header cannot carry as it is.
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write("GET /catalog/latin HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: caf\u00e9%\r\nConnection: close\r\n\r\n");
            assertThat(http.readResponse().status()).isEqualTo(200);
        }
        assertThat(backend.headers("/catalog/latin").get("X-Tenant-Id")).containsExactly("caf%C3%A9%25");
    }

    /**
     * A backend that reads every request's body to its end and records how it ended: {@code complete
     * <body>}, or {@code aborted} if the connection broke before the body did.
     */
    static final class RecordingBackend implements AutoCloseable {

        private final Map<String, String> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
        private final Map<String, Map<String, List<String>>> headers = new java.util.concurrent.ConcurrentHashMap<>();
        private final ConcurrentLinkedQueue<String> started = new ConcurrentLinkedQueue<>();
        private final LoopResources loops = LoopResources.create("recording-backend", 1, true);
        private final DisposableServer server;

        RecordingBackend() {
            server = HttpServer.create().runOn(loops).host("127.0.0.1").port(0)
                    .handle((request, response) -> {
                        String target = request.uri();
                        started.add(target);
                        Map<String, List<String>> copy = new java.util.LinkedHashMap<>();
                        for (String name : request.requestHeaders().names()) {
                            copy.put(name, List.copyOf(request.requestHeaders().getAll(name)));
                        }
                        headers.put(target, copy);
                        return request.receive().aggregate().asString(StandardCharsets.UTF_8).defaultIfEmpty("")
                                .doOnNext(body -> outcomes.put(target, "complete " + body))
                                .doOnError(e -> outcomes.put(target, "aborted " + e))
                                .then(response.sendString(Mono.just("ok")).then())
                                .onErrorResume(e -> Mono.empty());
                    })
                    .bindNow();
        }

        String uri() {
            return "http://127.0.0.1:" + server.port();
        }

        boolean started(String target) {
            return started.contains(target);
        }

        int count() {
            return started.size();
        }

        /** How the request to {@code target} ended; null if it did not arrive or has not ended. */
        String outcome(String target) {
            return outcomes.get(target);
        }

        Map<String, List<String>> headers(String target) {
            return headers.get(target);
        }

        @Override
        public void close() {
            server.disposeNow();
            loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10)); // no quiet period: nothing more will come
        }
    }
}
