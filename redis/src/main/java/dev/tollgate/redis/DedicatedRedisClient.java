package dev.tollgate.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Tollgate's own Lettuce client, apart from any the application uses: its settings suit a rate
 * limiter and would not suit every Redis user.
 *
 * <ul>
 *   <li><b>The gateway's own event loops</b>, when it can have them ({@link Loops#of}, {@link #onGatewayLoops}): one
 *       connection per HTTP event loop, so a request's call is written, and its reply read, on the
 *       thread that serves the request, with no hop to another thread and back. Otherwise one I/O
 *       thread of its own ({@code tollgate-redis-*}) for every connection. Either way reply deadlines
 *       are checked on the loop that reads the replies (see {@link ScriptCalls}).</li>
 *   <li><b>Commands fail at once while disconnected</b> instead of queueing until Lettuce reconnects:
 *       a queued decision would only time out, and the circuit breaker needs to see the failures.</li>
 *   <li><b>Quick reconnects</b>: exponential back-off from 10 ms, capped at {@code reconnectMaxDelay}.</li>
 *   <li><b>A command timeout</b> ({@code commandTimeout}) so that no command waits forever, except
 *       for script calls, whose own deadline is far shorter ({@link CommandTimeouts}); the same
 *       connect timeout.</li>
 *   <li>A cluster follows failovers ({@link RecommendedClusterClientOptions}).</li>
 *   <li>No Lettuce command latency statistics: Tollgate times its own calls.</li>
 * </ul>
 */
public final class DedicatedRedisClient implements AutoCloseable {

    /**
     * Lettuce's own command timeout unless told otherwise: it bounds commands other than script calls,
     * whose deadline is far shorter ({@link CommandTimeouts}).
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final Connect connect;
    private final int connections;

    private interface Connect {
        CompletionStage<? extends StatefulConnection<String, String>> open();
    }

    private DedicatedRedisClient(ClientResources resources, AbstractRedisClient client, Connect connect,
                                 int connections) {
        this.resources = resources;
        this.client = client;
        this.connect = connect;
        this.connections = connections;
    }

    /**
     * Where the client's connections should run, chosen once: on {@code loops} (the gateway's HTTP
     * event loops; {@code null} when there are none) if Lettuce's transport can run on them, else
     * on one I/O thread of its own.
     */
    public static final class Loops {

        private final SharedEventLoops shared;

        private Loops(SharedEventLoops shared) {
            this.shared = shared;
        }

        public static Loops of(EventLoopGroup gatewayLoops) {
            return new Loops(gatewayLoops == null ? null : SharedEventLoops.ifCompatible(gatewayLoops));
        }

        /** One I/O thread of the client's own. */
        public static Loops own() {
            return new Loops(null);
        }

        /** Whether the connections will run on the gateway's loops. */
        public boolean shared() {
            return shared != null;
        }
    }

    /** A client of one Redis server, on one I/O thread of its own. */
    public static DedicatedRedisClient standalone(RedisURI uri, Duration commandTimeout, Duration reconnectMaxDelay) {
        return standalone(uri, commandTimeout, reconnectMaxDelay, Loops.own());
    }

    /** A client of one Redis server. */
    public static DedicatedRedisClient standalone(RedisURI uri, Duration commandTimeout, Duration reconnectMaxDelay,
                                                  Loops loops) {
        ClientResources resources = resources(reconnectMaxDelay, loops);
        RedisClient client = RedisClient.create(resources);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(CommandTimeouts.exceptScriptCalls(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).build())
                .build());
        return new DedicatedRedisClient(resources, client, () -> client.connectAsync(StringCodec.UTF8, uri),
                connectionsFor(loops));
    }

    /** A client of a Redis Cluster, discovered from {@code nodes}, on one I/O thread of its own. */
    public static DedicatedRedisClient cluster(List<RedisURI> nodes, Duration commandTimeout, Duration reconnectMaxDelay) {
        return cluster(nodes, commandTimeout, reconnectMaxDelay, Loops.own());
    }

    /** A client of a Redis Cluster, discovered from {@code nodes}. */
    public static DedicatedRedisClient cluster(List<RedisURI> nodes, Duration commandTimeout, Duration reconnectMaxDelay,
                                               Loops loops) {
        ClientResources resources = resources(reconnectMaxDelay, loops);
        RedisClusterClient client = RedisClusterClient.create(resources, nodes);
        client.setOptions(RecommendedClusterClientOptions.defaults()
                .withTimeouts(commandTimeout, commandTimeout).toClientOptions());
        // The asynchronous connect needs the topology first (the blocking one loads it itself).
        return new DedicatedRedisClient(resources, client,
                () -> client.refreshPartitionsAsync()
                        .thenCompose(topology -> client.connectAsync(StringCodec.UTF8))
                        .thenCompose(DedicatedRedisClient::withMasterConnections),
                connectionsFor(loops));
    }

    /**
     * A cluster connection opens its connection to a node on the first command for that node: the
     * first request for each master would pay a TCP connect and handshake within its deadline and
     * likely go to the local fallback. Opening them before the connection is handed out avoids it. A
     * master that cannot be reached now is left to Lettuce (connected on first use).
     */
    private static CompletionStage<StatefulRedisClusterConnection<String, String>> withMasterConnections(
            StatefulRedisClusterConnection<String, String> connection) {
        CompletableFuture<?>[] opening = connection.getPartitions().stream()
                .filter(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
                .map(node -> connection.getConnectionAsync(node.getNodeId()).handle((opened, error) -> null))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(opening).thenApply(ignored -> connection);
    }

    /** How many connections to open: one per event loop the client runs on. */
    public int connections() {
        return connections;
    }

    /** Whether the connections run on the gateway's own event loops. */
    public boolean onGatewayLoops() {
        return resources.eventLoopGroupProvider() instanceof SharedEventLoops;
    }

    private static int connectionsFor(Loops loops) {
        return loops.shared() ? loops.shared.loops() : 1;
    }

    /** Opens a connection (asynchronously); see {@link RedisConnector} for retries. */
    public CompletionStage<? extends StatefulConnection<String, String>> connect() {
        return connect.open();
    }

    private static ClientResources resources(Duration reconnectMaxDelay, Loops loops) {
        ClientResources.Builder builder = DefaultClientResources.builder()
                .computationThreadPoolSize(1)
                .threadFactoryProvider(pool -> new DefaultThreadFactory("tollgate-redis-" + pool, true))
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), reconnectMaxDelay, 2, TimeUnit.MILLISECONDS))
                // Lettuce turns on its own per-command latency statistics when LatencyUtils is on the
                // class path (it is, through Micrometer): a map lookup and a histogram update per call,
                // read by nobody. Tollgate times its calls itself (tollgate.redis.latency).
                .commandLatencyRecorder(CommandLatencyRecorder.disabled());
        if (loops.shared()) {
            builder.eventLoopGroupProvider(loops.shared);
        } else {
            builder.ioThreadPoolSize(1);
        }
        return builder.build();
    }

    @Override
    public void close() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
