package dev.tollgate.bench.upstream;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The backend behind every gateway in the benchmark: answers any request with 200 and a 3-byte
 * body, as fast as Reactor Netty can, so what is measured is the gateway, not the backend.
 * Runs as a process of its own ({@code main(port)}), bound to 127.0.0.1 only.
 */
public final class FastUpstream {

    private static final byte[] BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);

    private FastUpstream() {
    }

    public static DisposableServer start(int port) {
        return HttpServer.create()
                .host("127.0.0.1")
                .port(port)
                .handle((request, response) -> response
                        .header("Content-Type", "text/plain")
                        .header("Content-Length", Integer.toString(BODY.length))
                        .sendByteArray(Mono.just(BODY)))
                .bindNow();
    }

    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[0]);
        DisposableServer server = start(port);
        System.out.println("fast upstream listening on 127.0.0.1:" + server.port());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.disposeNow();
            stopped.countDown();
        }));
        stopped.await();
    }
}
