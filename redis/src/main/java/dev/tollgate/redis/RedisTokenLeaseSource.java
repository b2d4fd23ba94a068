package dev.tollgate.redis;

import dev.tollgate.core.BucketCharges;
import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.LeaseGrant;
import dev.tollgate.core.TokenLeaseSource;
import io.lettuce.core.api.StatefulConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Leases and charges on the buckets {@link RedisBucketStore} keeps: {@code token_lease.lua} takes a
 * batch in one atomic call on Redis's clock, {@code token_return.lua} gives unspent tokens back
 * (never above the capacity), and a charge takes what the local fallback admitted. All run through
 * {@link ScriptCalls} (deadline, NOSCRIPT recovery, standalone or cluster) on the same hash as the
 * bucket script, so leasing, charging and per-request calls on one key can be mixed.
 */
public final class RedisTokenLeaseSource implements TokenLeaseSource, BucketCharges {

    public static final String LEASE_SCRIPT_RESOURCE = "dev/tollgate/redis/token_lease.lua";
    public static final String RETURN_SCRIPT_RESOURCE = "dev/tollgate/redis/token_return.lua";

    private static final LuaScript LEASE =
            LuaScript.fromResources(RedisBucketStore.REFILL_RESOURCE, RedisBucketStore.HASH_RESOURCE,
                    LEASE_SCRIPT_RESOURCE);
    private static final LuaScript RETURN =
            LuaScript.fromResources(RedisBucketStore.REFILL_RESOURCE, RedisBucketStore.HASH_RESOURCE,
                    RETURN_SCRIPT_RESOURCE);

    /** A charge takes any number of micro-tokens: the lease script's "whole requests" of one micro-token. */
    private static final long ANY_AMOUNT = 1;

    private final ScriptCalls calls;

    public RedisTokenLeaseSource(ScriptCalls calls) {
        this.calls = calls;
    }

    /** A source on a connection that is already open (tests, tools, benchmarks). */
    public static RedisTokenLeaseSource on(StatefulConnection<String, String> connection) {
        return new RedisTokenLeaseSource(ScriptCalls.on(connection));
    }

    @Override
    public CompletionStage<LeaseGrant> takeUpTo(BucketKey key, BucketLimits limits, long maxMicros) {
        if (maxMicros < 0 || maxMicros > limits.capacityMicros()) {
            throw new IllegalArgumentException("a lease is between 0 and the capacity "
                    + limits.capacityMicros() + " micro-tokens, was " + maxMicros);
        }
        return calls.call(LEASE, new String[] {key.redisKey()},
                        new long[] {limits.capacityMicros(), limits.refillMicrosPerMilli(), maxMicros, limits.costMicros()})
                .thenApply(RedisTokenLeaseSource::toGrant);
    }

    @Override
    public CompletionStage<Void> giveBack(BucketKey key, BucketLimits limits, long micros) {
        if (micros < 1 || micros > BucketLimits.MAX_MICROS) {
            throw new IllegalArgumentException("micro-tokens given back must be in [1, 2^53], was " + micros);
        }
        return calls.call(RETURN, new String[] {key.redisKey()}, new long[] {limits.capacityMicros(), micros})
                .thenApply(tokens -> null);
    }

    @Override
    public CompletionStage<Void> charge(BucketKey key, BucketLimits limits, long micros) {
        if (micros < 1 || micros > limits.capacityMicros()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "a charge is between 1 and the capacity " + limits.capacityMicros() + " micro-tokens, was " + micros));
        }
        return calls.call(LEASE, new String[] {key.redisKey()},
                        new long[] {limits.capacityMicros(), limits.refillMicrosPerMilli(), micros, ANY_AMOUNT})
                .thenApply(grant -> null);
    }

    /** The lease script, for tests and tooling. */
    public static LuaScript leaseScript() {
        return LEASE;
    }

    private static LeaseGrant toGrant(long[] reply) {
        if (reply == null || reply.length != 3) {
            throw new IllegalStateException("unexpected reply from the token-lease script: "
                    + (reply == null ? "none" : reply.length + " integers"));
        }
        return new LeaseGrant(reply[0], reply[1], reply[2]);
    }
}
