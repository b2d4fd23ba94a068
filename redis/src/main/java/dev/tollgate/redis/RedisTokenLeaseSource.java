package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.LeaseGrant;
import dev.tollgate.core.TokenLeaseSource;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Leases from the buckets {@link RedisBucketStore} keeps: {@code token_lease.lua} takes a batch in
 * one atomic call on Redis's clock, {@code token_return.lua} gives unspent tokens back (added to the
 * bucket as last written, never above the capacity, without refilling: see
 * {@link TokenLeaseSource#giveBack}). Both run by EVALSHA with NOSCRIPT recovery, standalone or cluster, like the bucket
 * script, and use the same hash, so leasing and per-request calls on one key can be mixed.
 */
public final class RedisTokenLeaseSource implements TokenLeaseSource {

    public static final String LEASE_SCRIPT_RESOURCE = "dev/tollgate/redis/token_lease.lua";
    public static final String RETURN_SCRIPT_RESOURCE = "dev/tollgate/redis/token_return.lua";

    private static final LuaScript LEASE =
            LuaScript.fromResources(RedisBucketStore.REFILL_RESOURCE, LEASE_SCRIPT_RESOURCE);
    private static final LuaScript RETURN =
            LuaScript.fromResources(RedisBucketStore.REFILL_RESOURCE, RETURN_SCRIPT_RESOURCE);

    private static final RedisUnavailableException NOT_CONNECTED =
            new RedisUnavailableException("no connection to Redis yet");

    private final Supplier<RedisScriptingAsyncCommands<String, String>> connection;

    /** A source on a connection that is already open. */
    public RedisTokenLeaseSource(RedisScriptingAsyncCommands<String, String> redis) {
        this(() -> redis);
    }

    /**
     * A source on a connection that may not exist yet ({@code null} until it does); calls fail with
     * {@link RedisUnavailableException} meanwhile.
     */
    public RedisTokenLeaseSource(Supplier<RedisScriptingAsyncCommands<String, String>> connection) {
        this.connection = connection;
    }

    @Override
    public CompletionStage<LeaseGrant> takeUpTo(BucketKey key, BucketLimits limits, long maxMicros) {
        if (maxMicros < 0 || maxMicros > limits.capacityMicros()) {
            throw new IllegalArgumentException("a lease is between 0 and the capacity "
                    + limits.capacityMicros() + " micro-tokens, was " + maxMicros);
        }
        RedisScriptingAsyncCommands<String, String> redis = connection.get();
        if (redis == null) {
            return CompletableFuture.failedFuture(NOT_CONNECTED);
        }
        return LEASE.<List<Object>>run(redis, ScriptOutputType.MULTI, new String[] {key.redisKey()},
                        Long.toString(limits.capacityMicros()),
                        Long.toString(limits.refillMicrosPerMilli()),
                        Long.toString(maxMicros),
                        Long.toString(limits.costMicros()))
                .thenApply(RedisTokenLeaseSource::toGrant);
    }

    @Override
    public CompletionStage<Void> giveBack(BucketKey key, BucketLimits limits, long micros) {
        if (micros < 1 || micros > BucketLimits.MAX_MICROS) {
            throw new IllegalArgumentException("micro-tokens given back must be in [1, 2^53], was " + micros);
        }
        RedisScriptingAsyncCommands<String, String> redis = connection.get();
        if (redis == null) {
            return CompletableFuture.failedFuture(NOT_CONNECTED);
        }
        return RETURN.<Long>run(redis, ScriptOutputType.INTEGER, new String[] {key.redisKey()},
                        Long.toString(limits.capacityMicros()),
                        Long.toString(micros))
                .thenApply(tokens -> null);
    }

    /** The lease script, for tests and tooling. */
    public static LuaScript leaseScript() {
        return LEASE;
    }

    private static LeaseGrant toGrant(List<Object> reply) {
        if (reply == null || reply.size() != 3) {
            throw new IllegalStateException("unexpected reply from the token-lease script: " + reply);
        }
        return new LeaseGrant((Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2));
    }
}
