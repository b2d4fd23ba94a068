package dev.tollgate.redis;

import dev.tollgate.core.MonotonicClock;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Gateway instances announce themselves in Redis so that each knows how many are alive: a sorted
 * set of instance ids scored by the Redis {@code TIME} of their last beat; entries older than the
 * time-to-live are dropped. The count is what the local fallback divides limits by when Redis is
 * gone.
 *
 * <p>Beats are script calls like the requests' ({@link ScriptCalls}: a reply deadline, NOSCRIPT
 * recovery), but on calls of their own, with neither a circuit breaker nor an observer: a slow or
 * failed beat is no request's decision, so it neither opens the requests' breaker nor shows in
 * their latency metric.
 */
public final class InstanceHeartbeat {

    public static final String SCRIPT_RESOURCE = "dev/tollgate/redis/instance_heartbeat.lua";
    public static final String DEFAULT_KEY = "tollgate:instances";

    private static final LuaScript SCRIPT = LuaScript.fromResource(SCRIPT_RESOURCE);

    private final RedisLink redis;
    private final ScriptCalls calls;
    private final String key;

    /**
     * @param deadline how long Redis has to answer a beat, from the moment it is written
     */
    public InstanceHeartbeat(RedisLink redis, String key, Duration deadline) {
        this.redis = redis;
        this.calls = new ScriptCalls(redis, deadline, MonotonicClock.system());
        this.key = key;
    }

    /**
     * Records a beat of {@code instanceId} and returns how many instances beat within {@code ttl};
     * fails with {@link RedisUnavailableException} while there is no connection, with
     * {@link ReplyTimeoutException} past the deadline.
     */
    public CompletionStage<Long> beat(String instanceId, Duration ttl) {
        return calls.call(SCRIPT, new String[] {key}, instanceId, Long.toString(ttl.toMillis()))
                .thenApply(reply -> reply[0]);
    }

    /** Removes {@code instanceId} at once (a clean shutdown), instead of letting it expire. */
    public CompletionStage<Long> leave(String instanceId) {
        RedisLane lane = redis.laneOrNull();
        if (lane == null) {
            return CompletableFuture.completedFuture(0L);
        }
        RedisClusterAsyncCommands<String, String> commands = lane.commands();
        return commands.zrem(key, instanceId);
    }
}
