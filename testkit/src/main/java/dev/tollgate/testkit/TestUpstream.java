package dev.tollgate.testkit;

import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * A real HTTP backend for tests, on a free loopback port: answers every request with 200 and
 * {@code upstream\n}, counts the requests that reach it and keeps what each one looked like when it
 * arrived (method, request target and headers, as the gateway sent them).
 *
 * <p>It runs on an event loop of its own: a gateway stopped during a test disposes Reactor Netty's
 * global loops, and the backend must outlive it. Every request is kept, so it is for tests only; dev
 * mode and the benchmark have backends of their own that keep nothing.
 */
public final class TestUpstream implements AutoCloseable {

    /** The body of every answer. */
    public static final String BODY = "upstream\n";

    /** A request as the backend received it. */
    public record Received(String method, String target, Map<String, List<String>> headers) {

        /** Every value of header {@code name} (case-insensitive); empty if it was not sent. */
        public List<String> header(String name) {
            return headers.entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream())
                    .toList();
        }
    }

    private final AtomicInteger requests = new AtomicInteger();
    private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
    private final LoopResources loops = LoopResources.create("test-upstream", 1, true);
    private final DisposableServer server;

    public TestUpstream() {
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        server = HttpServer.create()
                .runOn(loops)
                .host("127.0.0.1")
                .port(0)
                .handle((request, response) -> {
                    requests.incrementAndGet();
                    received.add(new Received(request.method().name(), request.uri(), copy(request.requestHeaders())));
                    return response.header("Content-Type", "text/plain").sendByteArray(Mono.just(body)).then();
                })
                .bindNow();
    }

    private static Map<String, List<String>> copy(HttpHeaders headers) {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        for (String name : headers.names()) {
            copy.put(name, List.copyOf(headers.getAll(name)));
        }
        return copy;
    }

    /** {@code http://127.0.0.1:port}, without a trailing slash. */
    public String uri() {
        return "http://127.0.0.1:" + server.port();
    }

    public int port() {
        return server.port();
    }

    /** Requests received so far. */
    public int requests() {
        return requests.get();
    }

    /** Every request received so far, oldest first. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    /** The most recent request received; fails if there was none. */
    public Received last() {
        List<Received> all = received();
        if (all.isEmpty()) {
            throw new AssertionError("no request reached the backend");
        }
        return all.get(all.size() - 1);
    }

    @Override
    public void close() {
        server.disposeNow();
        loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10)); // no quiet period: nothing more will come
    }
}
