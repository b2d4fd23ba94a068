package dev.tollgate.gateway;

import dev.tollgate.testkit.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * A Tollgate gateway started in this JVM on a free port, spoken to over real HTTP. Several can run
 * side by side, like instances of a cluster.
 */
final class RunningGateway implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** Property naming the folder an instance keeps its saved snapshot and instance count in. */
    static final String LOCAL_STATE = "tollgate.local-state.directory";
    /** Property naming the secret its files are authenticated with (the testkit's PostgreSQL has no password). */
    static final String LOCAL_STATE_SECRET = "tollgate.local-state.secret";

    /** Who sees health details: everyone in tests (which check them) unless a test says {@link #AS_SHIPPED}. */
    static final String HEALTH_DETAILS = "management.endpoint.health.show-details";

    /** A property value meaning "not given here": application.yml's own value applies. */
    static final String AS_SHIPPED = "(as shipped)";

    private final ConfigurableApplicationContext context;
    private final int port;
    private final Path ownLocalState;

    private RunningGateway(ConfigurableApplicationContext context, Path ownLocalState) {
        this.context = context;
        this.port = Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
        this.ownLocalState = ownLocalState;
    }

    /**
     * Each gateway keeps its local state (saved snapshot, instance count) in a new temporary folder,
     * deleted when it closes, unless {@link #LOCAL_STATE} is given: tests share nothing through disk
     * unless they mean to.
     */
    static RunningGateway start(Map<String, Object> properties, String... profiles) {
        return start(properties, context -> { }, profiles);
    }

    /**
     * As {@link #start(Map, String...)}, with beans of the test's own registered before the context
     * refreshes (a {@code LimitBook}, say).
     */
    static RunningGateway start(Map<String, Object> properties, Consumer<GenericApplicationContext> beans,
                                String... profiles) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("server.port", "0");
        all.put("management.server.port", "0");
        all.put("spring.main.banner-mode", "off");
        all.put(HEALTH_DETAILS, "always");
        Path ownLocalState = null;
        all.put(LOCAL_STATE_SECRET, "the gateway tests' local-state secret");
        if (!properties.containsKey(LOCAL_STATE)) {
            ownLocalState = temporaryFolder("tollgate-local-state");
            all.put(LOCAL_STATE, ownLocalState.toString());
        }
        all.putAll(properties);
        all.values().removeIf(AS_SHIPPED::equals);
        // As command-line arguments, so they win over application.yml like an operator's would.
        String[] args = all.entrySet().stream()
                .map(e -> "--" + e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
        ConfigurableApplicationContext context;
        try {
            context = new SpringApplicationBuilder(TollgateApplication.class)
                    .profiles(profiles)
                    .initializers(RunningGateway::ownEventLoops,
                            app -> beans.accept((GenericApplicationContext) app))
                    .run(args);
        } catch (RuntimeException e) {
            if (ownLocalState != null) {
                deleteFolder(ownLocalState);
            }
            throw e;
        }
        return new RunningGateway(context, ownLocalState);
    }

    /**
     * Gives the gateway event loops of its own, as a gateway process has, instead of Reactor Netty's
     * global ones (Spring Boot's default): several gateways run in one test JVM, and closing one would
     * stop the global loops under the others, their Redis connections included. It also lets the
     * gateway module's tests stop loops with no quiet period (the surefire settings in its pom).
     */
    private static void ownEventLoops(ConfigurableApplicationContext context) {
        ((GenericApplicationContext) context).registerBean("reactorServerResourceFactory",
                ReactorResourceFactory.class, () -> {
                    ReactorResourceFactory factory = new ReactorResourceFactory();
                    factory.setUseGlobalResources(false);
                    return factory;
                });
    }

    static Path temporaryFolder(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteFolder(Path folder) {
        try (var paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind is harmless
        }
    }

    /**
     * A gateway on {@code redis} with rules from properties ({@code tollgate.source=static}) and
     * a hot key leased from 20 requests a second, so that one sequential client makes a key hot on
     * any machine; a 5 s Redis cut-off makes every decision Redis's or the lease's.
     */
    static Map<String, Object> leasingOn(RedisServer redis) {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.data.redis.host", redis.host());
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.source", "static");
        p.put("tollgate.redis.timeout", "5s");
        p.put("tollgate.hot-keys.leases.hot-requests-per-second", "20");
        return p;
    }

    /** Properties for a route {@code id} matching {@code method path} and forwarding to {@code uri}. */
    static Map<String, Object> route(int index, String id, String method, String path, String uri) {
        String prefix = "spring.cloud.gateway.server.webflux.routes[" + index + "].";
        return Map.of(
                prefix + "id", id,
                prefix + "uri", uri,
                prefix + "predicates[0]", "Path=" + path,
                prefix + "predicates[1]", "Method=" + method);
    }

    /** Properties for a rule of {@code tenant} on {@code route}. */
    static Map<String, Object> rule(int index, String tenant, String route, long capacity, double refillPerSecond) {
        String prefix = "tollgate.rules[" + index + "].";
        return Map.of(
                prefix + "tenant", tenant,
                prefix + "route", route,
                prefix + "capacity", Long.toString(capacity),
                prefix + "refill-per-second", Double.toString(refillPerSecond));
    }

    int port() {
        return port;
    }

    int managementPort() {
        return Integer.parseInt(context.getEnvironment().getRequiredProperty("local.management.port"));
    }

    /** A request to the admin API on the management port, with a bearer token (or none). */
    HttpResponse<String> admin(String method, String path, String jsonBody, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort() + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, jsonBody == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(jsonBody));
        if (jsonBody != null) {
            request.header("Content-Type", "application/json");
        }
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return exchange(request.build());
    }

    /** GET on the management (actuator) port. */
    HttpResponse<String> management(String path) {
        return exchange(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort() + path))
                .timeout(Duration.ofSeconds(10))
                .build());
    }

    private static HttpResponse<String> exchange(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.net.http.HttpTimeoutException e) {
            StringBuilder dump = new StringBuilder("HTTP timeout on " + request.uri() + "; threads:\n");
            Thread.getAllStackTraces().forEach((t, st) -> {
                dump.append(t.getName()).append(' ').append(t.getState()).append('\n');
                for (StackTraceElement el : st) {
                    dump.append("    at ").append(el).append('\n');
                }
            });
            System.err.println(dump);
            throw new UncheckedIOException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    ConfigurableApplicationContext context() {
        return context;
    }

    HttpResponse<String> send(String method, String path, String apiKey) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (apiKey != null) {
            request.header("X-Api-Key", apiKey);
        }
        return exchange(request.build());
    }

    /** A request on the public port with headers given as name, value, name, value... */
    HttpResponse<String> sendWithHeaders(String method, String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return exchange(request.build());
    }

    @Override
    public void close() {
        context.close();
        if (ownLocalState != null) {
            deleteFolder(ownLocalState);
        }
    }
}
