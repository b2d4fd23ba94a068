package dev.tollgate.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Tollgate's own Lettuce client, apart from any the application uses: its settings suit a rate
 * limiter and would not suit every Redis user.
 *
 * <ul>
 *   <li><b>One I/O thread</b> ({@code tollgate-redis-*}) for every connection, standalone or all of a
 *       cluster's nodes: reply deadlines are checked on the loop that reads the replies (see
 *       {@link ScriptCalls}). One thread is plenty: calls carry batches of decisions.</li>
 *   <li><b>Commands fail at once while disconnected</b> instead of queueing until Lettuce reconnects:
 *       a queued decision would only time out, and the circuit breaker needs to see the failures.</li>
 *   <li><b>Quick reconnects</b>: exponential back-off from 10 ms, capped at {@code reconnectMaxDelay}.</li>
 *   <li><b>A command timeout</b> ({@code commandTimeout}) as a last safety net under the per-call
 *       deadline, and the same connect timeout.</li>
 *   <li>A cluster follows failovers ({@link RecommendedClusterClientOptions}).</li>
 * </ul>
 */
public final class DedicatedRedisClient implements AutoCloseable {

    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final Connect connect;

    private interface Connect {
        CompletionStage<? extends StatefulConnection<String, String>> open();
    }

    private DedicatedRedisClient(ClientResources resources, AbstractRedisClient client, Connect connect) {
        this.resources = resources;
        this.client = client;
        this.connect = connect;
    }

    /** A client of one Redis server. */
    public static DedicatedRedisClient standalone(RedisURI uri, Duration commandTimeout, Duration reconnectMaxDelay) {
        ClientResources resources = resources(reconnectMaxDelay);
        RedisClient client = RedisClient.create(resources);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).build())
                .build());
        return new DedicatedRedisClient(resources, client, () -> client.connectAsync(StringCodec.UTF8, uri));
    }

    /** A client of a Redis Cluster, discovered from {@code seeds}. */
    public static DedicatedRedisClient cluster(List<RedisURI> seeds, Duration commandTimeout, Duration reconnectMaxDelay) {
        ClientResources resources = resources(reconnectMaxDelay);
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(RecommendedClusterClientOptions.defaults()
                .withTimeouts(commandTimeout, commandTimeout).toClientOptions());
        // The asynchronous connect needs the topology first (the blocking one loads it itself).
        return new DedicatedRedisClient(resources, client,
                () -> client.refreshPartitionsAsync().thenCompose(topology -> client.connectAsync(StringCodec.UTF8)));
    }

    /** Opens a connection (asynchronously); see {@link RedisConnector} for retries. */
    public CompletionStage<? extends StatefulConnection<String, String>> connect() {
        return connect.open();
    }

    private static ClientResources resources(Duration reconnectMaxDelay) {
        return DefaultClientResources.builder()
                .ioThreadPoolSize(1)
                .computationThreadPoolSize(1)
                .threadFactoryProvider(pool -> new DefaultThreadFactory("tollgate-redis-" + pool, true))
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), reconnectMaxDelay, 2, TimeUnit.MILLISECONDS))
                .build();
    }

    @Override
    public void close() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
