package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.Decision;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Buckets in Redis: one atomic Lua call per decision ({@code token_bucket.lua}), run by EVALSHA,
 * on Redis's clock. When Redis answers NOSCRIPT (it restarted, or {@code SCRIPT FLUSH} ran) the call
 * is repeated once with EVAL, which also puts the script back in Redis's cache.
 *
 * <p>Works over any Lettuce connection: standalone or cluster (the script touches one key, so it
 * runs on the node that owns the bucket).
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
        return redis.<List<Object>>evalsha(script.sha1(), ScriptOutputType.MULTI, keys, args)
                .exceptionallyCompose(error -> isNoScript(error)
                        ? redis.<List<Object>>eval(script.source(), ScriptOutputType.MULTI, keys, args)
                        : CompletableFuture.failedFuture(error))
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

    private static boolean isNoScript(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null
                ? error.getCause()
                : error;
        return cause instanceof RedisNoScriptException;
    }
}
