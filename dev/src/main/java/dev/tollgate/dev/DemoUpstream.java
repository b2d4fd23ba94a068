package dev.tollgate.dev;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The backend of dev mode: a tiny HTTP server on a free loopback port that answers every request
 * with 200 and a JSON echo of what it received, so the gateway has something real to forward to.
 */
public final class DemoUpstream implements AutoCloseable {

    private final DisposableServer server;

    private DemoUpstream(DisposableServer server) {
        this.server = server;
    }

    public static DemoUpstream start() {
        DisposableServer server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .handle((request, response) -> {
                    String body = "{\"upstream\":\"tollgate-demo\",\"method\":\"" + request.method().name()
                            + "\",\"path\":\"" + request.uri().replace("\"", "") + "\"}\n";
                    return response.header("Content-Type", "application/json")
                            .sendByteArray(Mono.just(body.getBytes(StandardCharsets.UTF_8)))
                            .then();
                })
                .bindNow();
        return new DemoUpstream(server);
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.port());
    }

    @Override
    public void close() {
        server.disposeNow();
    }
}
