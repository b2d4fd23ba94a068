package dev.tollgate.redis;

import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import java.time.Duration;

/**
 * How to build the Lettuce {@code RedisClusterClient} a {@link RedisBucketStore} runs on, validated
 * when built. Lettuce's defaults suit a cluster whose topology never changes; after a failover they
 * keep sending a dead master's slots to the dead master for up to the 30 s adaptive-refresh rate
 * limit, and buffer those commands meanwhile. These options make the client notice a failover within
 * about a second of it completing:
 *
 * <ul>
 *   <li><b>adaptive topology refresh on every trigger</b> (MOVED/ASK redirects, persistent reconnects,
 *       uncovered slots, unknown nodes), rate-limited to once per {@code adaptiveRefreshRateLimit}
 *       (default 1 s) instead of 30 s, and after one failed reconnect instead of five;</li>
 *   <li><b>periodic topology refresh</b> every {@code periodicRefresh} (default 10 s), a safety net
 *       for changes no trigger reveals (a replica added, a master demoted cleanly);</li>
 *   <li><b>commands to a disconnected node fail at once</b> ({@link DisconnectedBehavior#REJECT_COMMANDS})
 *       instead of queueing until it comes back: the caller falls back to its local limiter;</li>
 *   <li><b>a command timeout</b> ({@code commandTimeout}, default 1 s) so no future waits forever
 *       (except Tollgate's script calls, which carry a far shorter deadline of their own, see
 *       {@link CommandTimeouts}), and
 *       a short connect timeout ({@code connectTimeout}, default 1 s) so reconnecting to a dead node
 *       does not stall a topology refresh. The gateway's own per-call deadline (5 ms) applies first.</li>
 * </ul>
 *
 * <p>Use: {@code client.setOptions(RecommendedClusterClientOptions.defaults().toClientOptions())}.
 *
 * @param periodicRefresh          interval of the periodic topology refresh
 * @param adaptiveRefreshRateLimit least time between two adaptive refreshes
 * @param commandTimeout           Lettuce's command timeout
 * @param connectTimeout           TCP connect timeout to a node
 */
public record RecommendedClusterClientOptions(Duration periodicRefresh, Duration adaptiveRefreshRateLimit,
                                              Duration commandTimeout, Duration connectTimeout) {

    public RecommendedClusterClientOptions {
        requirePositive("periodicRefresh", periodicRefresh);
        requirePositive("adaptiveRefreshRateLimit", adaptiveRefreshRateLimit);
        requirePositive("commandTimeout", commandTimeout);
        requirePositive("connectTimeout", connectTimeout);
    }

    /**
     * Periodic refresh every 10 s, adaptive refresh at most once a second, the
     * {@linkplain DedicatedRedisClient#DEFAULT_COMMAND_TIMEOUT default command timeout} (1 s), a 1 s
     * connect timeout.
     */
    public static RecommendedClusterClientOptions defaults() {
        return new RecommendedClusterClientOptions(Duration.ofSeconds(10), Duration.ofSeconds(1),
                DedicatedRedisClient.DEFAULT_COMMAND_TIMEOUT, Duration.ofSeconds(1));
    }

    /** The same with other command and connect timeouts. */
    public RecommendedClusterClientOptions withTimeouts(Duration command, Duration connect) {
        return new RecommendedClusterClientOptions(periodicRefresh, adaptiveRefreshRateLimit, command, connect);
    }

    /** The same with another periodic refresh interval (tests use a short one). */
    public RecommendedClusterClientOptions withPeriodicRefresh(Duration interval) {
        return new RecommendedClusterClientOptions(interval, adaptiveRefreshRateLimit, commandTimeout, connectTimeout);
    }

    public ClusterClientOptions toClientOptions() {
        ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(periodicRefresh)
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(adaptiveRefreshRateLimit)
                .refreshTriggersReconnectAttempts(1)
                .dynamicRefreshSources(true)
                .closeStaleConnections(true)
                .build();
        return ClusterClientOptions.builder()
                .topologyRefreshOptions(refresh)
                .autoReconnect(true)
                .disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(CommandTimeouts.exceptScriptCalls(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                .build();
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
        }
    }
}
