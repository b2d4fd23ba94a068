package dev.tollgate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The README's first command: dev mode serves the demo with nothing installed, on this machine only,
 * and stops cleanly.
 */
class DevModeTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Not the home folder: tests leave nothing behind. */
    @TempDir
    Path localState;

    @Test
    void theDemoCurlLoopPrints200_200_429AndEverythingStopsWithTheGateway() throws Exception {
        RedisServer devRedis;
        PostgresServer devPostgres;
        try (ConfigurableApplicationContext dev = TollgateDevMode.application()
                .run("--server.port=0", "--management.server.port=0", "--spring.main.banner-mode=off",
                        "--tollgate.local-state.directory=" + localState)) {
            int port = Integer.parseInt(dev.getEnvironment().getRequiredProperty("local.server.port"));
            devRedis = dev.getBean(RedisServer.class);
            devPostgres = dev.getBean(PostgresServer.class);
            List<Integer> codes = new ArrayList<>();
            HttpResponse<String> last = null;
            for (int i = 0; i < 3; i++) {
                last = send(port, "POST", "/orders", "shop-a");
                codes.add(last.statusCode());
            }
            assertThat(codes).containsExactly(200, 200, 429);
            // Two limits on the route: shop-a's own burst of 2 and its plan's day quota, both named.
            assertThat(last.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(policy -> assertThat(policy)
                    .contains("\"rule\";q=2;w=2").contains("\"daily\";q=1000;w=86400"));
            assertThat(last.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(last.body()).contains("\"limit\":\"rule\"");
            assertThat(send(port, "GET", "/orders", "shop-a").body()).contains("tollgate-demo");
            assertThat(devRedis.isAlive()).isTrue();

            // Loopback only: 127.0.0.2 is this machine too, but not the address the ports are bound to.
            int managementPort = Integer.parseInt(dev.getEnvironment().getRequiredProperty("local.management.port"));
            for (int p : new int[] {port, managementPort}) {
                assertThat(accepts("127.0.0.1", p)).as("127.0.0.1:%d", p).isTrue();
                assertThat(accepts("127.0.0.2", p)).as("127.0.0.2:%d", p).isFalse();
            }
        }
        assertThat(devRedis.isAlive()).isFalse();
        assertThat(devPostgres.isRunning()).isFalse();
    }

    /** Whether a TCP connection to {@code host:port} is accepted. */
    private static boolean accepts(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    private static HttpResponse<String> send(int port, String method, String path, String apiKey)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("X-Api-Key", apiKey)
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
