package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.Decision;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Buckets in Redis: one atomic Lua call per decision ({@code token_bucket.lua}), run by EVALSHA
 * on Redis's clock, with NOSCRIPT recovery (see {@link LuaScript#run}).
 *
 * <p>Works over any Lettuce connection: standalone ({@code RedisClient}) or cluster
 * ({@code RedisClusterClient}, whose async API implements {@link RedisScriptingAsyncCommands}). The
 * script touches one key, so a cluster connection routes it by that key's slot to the master that
 * owns the bucket; NOSCRIPT is recovered per node. See {@link RecommendedClusterClientOptions} for
 * how to build the cluster client.
 */
public final class RedisBucketStore implements BucketStore {

    public static final String SCRIPT_RESOURCE = "dev/tollgate/redis/token_bucket.lua";
    /** Read-and-refill steps shared by every script that touches a bucket, loaded in front of them. */
    public static final String REFILL_RESOURCE = "dev/tollgate/redis/bucket_refill.lua";

    /** The script every store runs: the shared refill steps, then the token-bucket decision. */
    public static final LuaScript SCRIPT = LuaScript.fromResources(REFILL_RESOURCE, SCRIPT_RESOURCE);

    private static final RedisUnavailableException NOT_CONNECTED =
            new RedisUnavailableException("no connection to Redis yet");

    private final Supplier<RedisScriptingAsyncCommands<String, String>> redis;
    private final LuaScript script;

    /** A store on a connection that is already open. */
    public RedisBucketStore(RedisScriptingAsyncCommands<String, String> redis) {
        this(() -> redis);
    }

    /**
     * A store on a connection that may not exist yet: {@code redis} returns {@code null} until it
     * does, and calls meanwhile fail with {@link RedisUnavailableException}.
     */
    public RedisBucketStore(Supplier<RedisScriptingAsyncCommands<String, String>> redis) {
        this.redis = redis;
        this.script = SCRIPT;
    }

    @Override
    public CompletionStage<Decision> tryAcquire(BucketKey key, BucketLimits limits) {
        RedisScriptingAsyncCommands<String, String> commands = redis.get();
        if (commands == null) {
            return CompletableFuture.failedFuture(NOT_CONNECTED);
        }
        String[] keys = {key.redisKey()};
        return script.<List<Object>>run(commands, ScriptOutputType.MULTI, keys,
                        Long.toString(limits.capacityMicros()),
                        Long.toString(limits.refillMicrosPerMilli()),
                        Long.toString(limits.costMicros()))
                .thenApply(reply -> toDecision(reply, limits));
    }

    /** The script this store runs. */
    public LuaScript script() {
        return script;
    }

    private static Decision toDecision(List<Object> reply, BucketLimits limits) {
        if (reply == null || reply.size() != 4) {
            throw new IllegalStateException("unexpected reply from the token-bucket script: " + reply);
        }
        long allowed = (Long) reply.get(0);
        long remaining = (Long) reply.get(1);
        long retryAfter = (Long) reply.get(2);
        long resetAfter = (Long) reply.get(3);
        return new Decision(allowed == 1L, remaining, limits.capacityTokens(), retryAfter, resetAfter);
    }
}
