package dev.tollgate.bench.process;

import dev.tollgate.bench.builtin.BuiltInLimiterPlugin;
import dev.tollgate.bench.plugin.GatewayPlugin;
import dev.tollgate.bench.plugin.KnownKeysAutoConfiguration;
import dev.tollgate.testkit.FreePort;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts gateways, each in a JVM of its own so that none shares a heap or a JIT with the load
 * generator or another gateway.
 *
 * <p>Tollgate and the no-limiter baseline run as {@code java -jar tollgate-gateway.jar}. The
 * built-in-limiter baseline runs the same jar through Spring Boot's {@code PropertiesLauncher}
 * (shipped in every Boot jar) so that {@code loader.path} can add one KeyResolver bean to it; the
 * key-directory variants of the bogus-key flood so that it can add a directory of issued keys.
 */
public final class GatewayLauncher {

    private static final String PROPERTIES_LAUNCHER = "org.springframework.boot.loader.launch.PropertiesLauncher";
    private static final String GATEWAY_MAIN = "dev.tollgate.gateway.TollgateApplication";
    /**
     * A safety net, not a figure: four gateways start at once (the three-limit one among them),
     * and on 2 shared cores with other builds running the first was seen not ready after 2 minutes.
     */
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(300);

    private final ChildProcesses processes;
    private final Path gatewayJar;
    private final Path pluginDir;
    private final Path knownKeysDir;
    private final String upstreamUrl;
    private final int redisPort;
    private final String jwkSetUri;
    private final int knownCallers;

    /**
     * @param jwkSetUri    where {@link GatewayVariant#TOLLGATE_JWT} fetches the keys its tokens are verified with
     * @param knownCallers keys {@code tenant-0} ... issued in the directory of the key-directory variants
     */
    public GatewayLauncher(ChildProcesses processes, Path gatewayJar, Path runDir, String upstreamUrl, int redisPort,
                           String jwkSetUri, int knownCallers) {
        if (!Files.isRegularFile(gatewayJar)) {
            throw new IllegalArgumentException("no gateway jar at " + gatewayJar
                    + "; build it first: ./mvnw -q -pl gateway,bench -am package -DskipTests");
        }
        this.processes = processes;
        this.gatewayJar = gatewayJar;
        this.pluginDir = BuiltInLimiterPlugin.writeTo(runDir.resolve("builtin-limiter-plugin"));
        this.knownKeysDir = GatewayPlugin.writeTo(runDir.resolve("known-keys-plugin"), KnownKeysAutoConfiguration.class);
        this.upstreamUrl = upstreamUrl;
        this.redisPort = redisPort;
        this.jwkSetUri = jwkSetUri;
        this.knownCallers = knownCallers;
    }

    /** Starts the gateways in parallel (startup is the slow part) and waits until all are ready. */
    public List<GatewayProcess> startAll(Map<String, GatewayVariant> byName) {
        List<GatewayProcess> started = new ArrayList<>();
        byName.forEach((name, variant) -> started.add(launch(name, variant)));
        for (GatewayProcess gateway : started) {
            awaitReady(gateway);
        }
        return started;
    }

    private GatewayProcess launch(String name, GatewayVariant variant) {
        int port = FreePort.find();
        List<String> command = new ArrayList<>(JavaCommand.JVM_OPTIONS);
        if (variant.hasPlugin()) {
            command.add("-Dloader.path=" + (variant == GatewayVariant.BUILT_IN ? pluginDir : knownKeysDir));
            command.add("-Dloader.main=" + GATEWAY_MAIN);
            command.add("-cp");
            command.add(gatewayJar.toString());
            command.add(PROPERTIES_LAUNCHER);
        } else {
            command.add("-jar");
            command.add(gatewayJar.toString());
        }
        GatewayProperties.of(variant, port, upstreamUrl, redisPort, jwkSetUri, knownCallers)
                .forEach((key, value) -> command.add("--" + key + "=" + value));
        return new GatewayProcess(name, variant, port, processes.startJava(name, command));
    }

    private static void awaitReady(GatewayProcess gateway) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/actuator/health"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!gateway.process().isAlive()) {
                throw new IllegalStateException(gateway.name() + " exited during startup:\n"
                        + gateway.process().logTail(40));
            }
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            sleep(200);
        }
        throw new IllegalStateException(gateway.name() + " not ready within " + STARTUP_TIMEOUT + ":\n"
                + gateway.process().logTail(40));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
