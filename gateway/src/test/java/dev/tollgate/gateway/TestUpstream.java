package dev.tollgate.gateway;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A real HTTP backend on a free loopback port that counts the requests that reach it and keeps
 * what each one looked like when it arrived (request target and headers, as sent by the gateway).
 */
final class TestUpstream implements AutoCloseable {

    /** A request as the backend received it. */
    record Received(String method, String target, Map<String, List<String>> headers) {

        /** Every value of header {@code name} (case-insensitive); empty if it was not sent. */
        List<String> header(String name) {
            return headers.entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream())
                    .toList();
        }
    }

    private final AtomicInteger requests = new AtomicInteger();
    private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
    private final DisposableServer server;

    TestUpstream() {
        server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .handle((request, response) -> {
                    requests.incrementAndGet();
                    received.add(new Received(request.method().name(), request.uri(), copy(request.requestHeaders())));
                    return response.header("Content-Type", "text/plain")
                            .sendByteArray(Mono.just("upstream\n".getBytes(StandardCharsets.UTF_8)))
                            .then();
                })
                .bindNow();
    }

    private static Map<String, List<String>> copy(HttpHeaders headers) {
        Map<String, List<String>> copy = new java.util.LinkedHashMap<>();
        for (String name : headers.names()) {
            copy.put(name, List.copyOf(headers.getAll(name)));
        }
        return copy;
    }

    String uri() {
        return "http://127.0.0.1:" + server.port();
    }

    int requests() {
        return requests.get();
    }

    /** Every request received so far, oldest first. */
    List<Received> received() {
        return List.copyOf(received);
    }

    /** The most recent request received; fails if there was none. */
    Received last() {
        List<Received> all = received();
        if (all.isEmpty()) {
            throw new AssertionError("no request reached the backend");
        }
        return all.get(all.size() - 1);
    }

    @Override
    public void close() {
        server.disposeNow();
    }
}
