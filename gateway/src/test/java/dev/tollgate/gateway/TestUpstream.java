package dev.tollgate.gateway;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** A real HTTP backend on a free loopback port that counts the requests that reach it. */
final class TestUpstream implements AutoCloseable {

    private final AtomicInteger requests = new AtomicInteger();
    private final DisposableServer server;

    TestUpstream() {
        server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .handle((request, response) -> {
                    requests.incrementAndGet();
                    return response.header("Content-Type", "text/plain")
                            .sendByteArray(Mono.just("upstream\n".getBytes(StandardCharsets.UTF_8)))
                            .then();
                })
                .bindNow();
    }

    String uri() {
        return "http://127.0.0.1:" + server.port();
    }

    int requests() {
        return requests.get();
    }

    @Override
    public void close() {
        server.disposeNow();
    }
}
