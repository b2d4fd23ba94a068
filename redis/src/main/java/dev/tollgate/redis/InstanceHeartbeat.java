package dev.tollgate.redis;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Gateway instances announce themselves in Redis so that each knows how many are alive: a sorted
 * set of instance ids scored by the Redis {@code TIME} of their last beat; entries older than the
 * time-to-live are dropped. The count is what the local fallback divides limits by when Redis is
 * gone.
 */
public final class InstanceHeartbeat {

    public static final String SCRIPT_RESOURCE = "dev/tollgate/redis/instance_heartbeat.lua";
    public static final String DEFAULT_KEY = "tollgate:instances";

    private final RedisLink redis;
    private final LuaScript script = LuaScript.fromResource(SCRIPT_RESOURCE);
    private final String key;

    public InstanceHeartbeat(RedisLink redis, String key) {
        this.redis = redis;
        this.key = key;
    }

    /** Records a beat of {@code instanceId} and returns how many instances beat within {@code ttl}. */
    public CompletionStage<Long> beat(String instanceId, Duration ttl) {
        RedisLane lane = redis.laneOrNull();
        if (lane == null) {
            return CompletableFuture.failedFuture(new RedisUnavailableException("no connection to Redis yet"));
        }
        RedisClusterAsyncCommands<String, String> commands = lane.commands();
        return script.run(commands, ScriptOutputType.INTEGER, new String[] {key},
                instanceId, Long.toString(ttl.toMillis()));
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
