package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.Decision;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Buckets in Redis: one atomic Lua call per decision ({@code token_bucket.lua}), run by EVALSHA,
 * on Redis's clock. When Redis answers NOSCRIPT (it restarted, or {@code SCRIPT FLUSH} ran) the call
 * is repeated once with EVAL, which also puts the script back in Redis's cache.
 *
 * <p>Works over any Lettuce connection: standalone ({@code RedisClient}) or cluster
 * ({@code RedisClusterClient}, whose async API implements {@link RedisScriptingAsyncCommands}). The
 * script touches one key, so a cluster connection routes it by that key's slot to the master that
 * owns the bucket; NOSCRIPT is recovered per node. See {@link RecommendedClusterClientOptions} for
 * how to build the cluster client.
 */
public final class RedisBucketStore implements BucketStore {

    public static final String SCRIPT_RESOURCE = "dev/tollgate/redis/token_bucket.lua";

    private final RedisScriptingAsyncCommands<String, String> redis;
    private final LuaScript script;

    public RedisBucketStore(RedisScriptingAsyncCommands<String, String> redis) {
        this.redis = redis;
        this.script = LuaScript.fromResource(SCRIPT_RESOURCE);
    }

    @Override
    public CompletionStage<Decision> tryAcquire(BucketKey key, BucketLimits limits) {
        String[] keys = {key.redisKey()};
        String[] args = {
                Long.toString(limits.capacityMicros()),
                Long.toString(limits.refillMicrosPerMilli()),
                Long.toString(limits.costMicros())};
        return script.<List<Object>>run(redis, ScriptOutputType.MULTI, keys, args)
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
