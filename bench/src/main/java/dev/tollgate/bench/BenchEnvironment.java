package dev.tollgate.bench;

import dev.tollgate.bench.process.ChildProcess;
import dev.tollgate.bench.process.ChildProcesses;
import dev.tollgate.bench.process.GatewayLauncher;
import dev.tollgate.bench.process.GatewayProcess;
import dev.tollgate.bench.process.GatewayVariant;
import dev.tollgate.bench.process.JavaCommand;
import dev.tollgate.bench.redis.RedisStats;
import dev.tollgate.bench.upstream.FastUpstream;
import dev.tollgate.spring.identity.TokenIssuer;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The servers of a scenario run, all on 127.0.0.1: one redis-server, the fast upstream (its own
 * JVM), a JWT issuer's JWK set (in this JVM), and gateways (one JVM each). Closing it stops every one
 * of them.
 */
public final class BenchEnvironment implements AutoCloseable {

    private final ChildProcesses processes;
    private final RedisServer redis;
    private final RedisStats redisStats;
    private final ChildProcess upstream;
    private final String upstreamUrl;
    private final GatewayLauncher launcher;
    private final TokenIssuer tokens;
    private final List<GatewayProcess> running = new ArrayList<>();

    private BenchEnvironment(ChildProcesses processes, RedisServer redis, ChildProcess upstream, String upstreamUrl,
                             GatewayLauncher launcher, TokenIssuer tokens) {
        this.processes = processes;
        this.redis = redis;
        this.redisStats = new RedisStats(redis.host(), redis.port());
        this.upstream = upstream;
        this.upstreamUrl = upstreamUrl;
        this.launcher = launcher;
        this.tokens = tokens;
    }

    /** {@code knownCallers}: keys {@code tenant-0} ... the key-directory gateways have issued. */
    public static BenchEnvironment start(Path runDir, Path gatewayJar, int knownCallers) {
        ChildProcesses processes = new ChildProcesses(runDir);
        RedisServer redis = null;
        TokenIssuer tokens = null;
        try {
            tokens = new TokenIssuer();
            redis = RedisServer.start();
            processes.recordPid(redis.pid());
            int upstreamPort = FreePort.find();
            ChildProcess upstream = processes.startJava("upstream", JavaCommand.onOwnClassPath(
                    FastUpstream.class.getName(), List.of(Integer.toString(upstreamPort))));
            awaitListening(upstream, upstreamPort);
            String upstreamUrl = "http://127.0.0.1:" + upstreamPort;
            GatewayLauncher launcher = new GatewayLauncher(processes, gatewayJar, runDir, upstreamUrl, redis.port(),
                    tokens.jwkSetUri(), knownCallers);
            return new BenchEnvironment(processes, redis, upstream, upstreamUrl, launcher, tokens);
        } catch (RuntimeException e) {
            processes.close();
            if (redis != null) {
                redis.close();
            }
            if (tokens != null) {
                tokens.close();
            }
            throw e;
        }
    }

    public List<GatewayProcess> startGateways(Map<String, GatewayVariant> byName) {
        List<GatewayProcess> started = launcher.startAll(byName);
        running.addAll(started);
        return started;
    }

    public void stopGateways(List<GatewayProcess> gateways) {
        processes.stopAll(gateways.stream().map(GatewayProcess::process).toList());
        running.removeAll(gateways);
    }

    /**
     * Fails if a server of the run has died: a load run against a dead gateway would only measure
     * connection errors. On this shared machine it has happened that other work's clean-up stopped
     * processes; this says so at once instead of filling the report with failures.
     */
    public void requireAllAlive() {
        List<ChildProcess> all = new ArrayList<>();
        all.add(upstream);
        running.forEach(g -> all.add(g.process()));
        for (ChildProcess p : all) {
            if (!p.isAlive()) {
                throw new IllegalStateException(p.name() + " has stopped (not by the suite); last lines of "
                        + p.log() + ":\n" + p.logTail(20));
            }
        }
        if (!redis.isAlive()) {
            throw new IllegalStateException("redis-server has stopped (not by the suite)");
        }
    }

    public String upstreamUrl() {
        return upstreamUrl;
    }

    public RedisServer redis() {
        return redis;
    }

    public RedisStats redisStats() {
        return redisStats;
    }

    /**
     * An RS256 token naming {@code tenant} in its {@code tenant} claim (the gateway's default
     * {@code tollgate.jwt.tenant-claim}), signed by a key of the JWK set the JWT gateway is given.
     * Valid for a day: a suite's tokens never expire during it.
     */
    public String tokenFor(String tenant) {
        return tokens.rs256(TokenIssuer.claims(Map.of("tenant", tenant))
                .expirationTime(java.util.Date.from(java.time.Instant.now().plus(Duration.ofDays(1))))
                .build());
    }

    private static void awaitListening(ChildProcess process, int port) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(process.name() + " exited:\n" + process.logTail(20));
            }
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new IllegalStateException(process.name() + " not listening on " + port + ":\n" + process.logTail(20));
    }

    @Override
    public void close() {
        try {
            redisStats.close();
        } finally {
            try {
                processes.close();
            } finally {
                try {
                    redis.close();
                } finally {
                    tokens.close();
                }
            }
        }
    }
}
