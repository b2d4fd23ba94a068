package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.Decision;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Buckets in Redis, decided by {@code token_bucket.lua} on Redis's clock: the requests that arrive
 * together are decided together, in one script call.
 *
 * <p>Requests made on a Netty event loop (the gateway's HTTP loops) are gathered per loop
 * ({@link EventLoopBatcher}) and sent as one call, up to {@value #MAX_BATCH} buckets a call. A batch starts with the first request a loop
 * reads and is sent at the end of a later turn of that loop (a turn: the loop reads what its sockets
 * hold, then runs its tasks):
 * <ul>
 *   <li>at the end of the first turn that added no request to it: under light load that is the very
 *       next turn, which finds nothing more to read and costs microseconds;</li>
 *   <li>at the latest at the end of the {@code waitTurns}-th turn after the one it started in (default
 *       {@value #DEFAULT_WAIT_TURNS}), or as soon as it holds {@value #MAX_BATCH} requests.</li>
 * </ul>
 * So a batch waits only while its loop keeps reading requests, which is when a busy gateway has more
 * decisions coming: at saturation one call carries the decisions of a few turns instead of one, and
 * Redis commands, their system calls on both sides, and their deadlines are paid per batch, not per
 * request. The wait is bounded by {@code waitTurns} turns of the loop, never by a timer; it is not
 * charged to Redis (a call's deadline starts when it is written, see {@link ScriptCalls}). Requests
 * from any other thread are sent alone, at once. Over a Redis Cluster a call carries only buckets of
 * one hash slot (a tenant's buckets share one), so a batch is split by slot.
 *
 * <p>Nothing about a decision changes with batching: the script decides each bucket exactly as it
 * would alone, atomically, in the order the requests arrived; two requests on one bucket in one call
 * are decided one after the other. See {@link ScriptCalls} for the deadline and the NOSCRIPT recovery.
 */
public final class RedisBucketStore implements BucketStore {

    public static final String SCRIPT_RESOURCE = "dev/tollgate/redis/token_bucket.lua";
    /** The refill steps (one Lua function) shared by every script that refills a bucket, loaded in front of them. */
    public static final String REFILL_RESOURCE = "dev/tollgate/redis/bucket_refill.lua";
    /**
     * Reading, refilling and writing a bucket kept as a hash of its own (Lua functions), loaded after
     * {@link #REFILL_RESOURCE} in front of the scripts that keep buckets so.
     */
    public static final String HASH_RESOURCE = "dev/tollgate/redis/bucket_hash.lua";

    /** The script every store runs: the shared bucket functions, then the token-bucket decisions. */
    public static final LuaScript SCRIPT = LuaScript.fromResources(REFILL_RESOURCE, HASH_RESOURCE, SCRIPT_RESOURCE);

    /** Most buckets one script call decides (3 arguments each; Lua's stack takes a few thousand). */
    public static final int MAX_BATCH = 128;

    /** Turns of its event loop a batch may wait for more requests by default; see the class comment. */
    public static final int DEFAULT_WAIT_TURNS = 2;

    /** Most turns a batch may be set to wait: beyond a few, a batch would mostly wait for nothing. */
    public static final int MAX_WAIT_TURNS = 16;

    private static final int REPLY_FIELDS = 4;
    private static final int ARGS_PER_KEY = 3;

    private final ScriptCalls calls;
    private final EventLoopBatcher<Pending> batcher;

    /** A store whose batches wait at most {@value #DEFAULT_WAIT_TURNS} more turns of their loop. */
    public RedisBucketStore(ScriptCalls calls) {
        this(calls, DEFAULT_WAIT_TURNS);
    }

    /**
     * @param waitTurns turns of its event loop, after the one it started in, that a batch may wait for
     *                  more requests while each turn brings some ({@code 0 .. }{@value #MAX_WAIT_TURNS});
     *                  0 sends every batch at the end of the turn it started in
     */
    public RedisBucketStore(ScriptCalls calls, int waitTurns) {
        if (waitTurns < 0 || waitTurns > MAX_WAIT_TURNS) {
            throw new IllegalArgumentException("waitTurns must be between 0 and " + MAX_WAIT_TURNS + ", was " + waitTurns);
        }
        this.calls = calls;
        this.batcher = new EventLoopBatcher<>(waitTurns, MAX_BATCH, this::send);
    }

    /** A store on a connection that is already open (tests, tools, benchmarks). */
    public static RedisBucketStore on(StatefulConnection<String, String> connection) {
        return new RedisBucketStore(ScriptCalls.on(connection));
    }

    @Override
    public CompletionStage<Decision> tryAcquire(BucketKey key, BucketLimits limits) {
        Pending request = new Pending(key.redisKey(), limits);
        batcher.add(request);
        return request;
    }

    private void send(List<Pending> batch) {
        if (!calls.isCluster()) {
            sendInChunks(batch);
            return;
        }
        Map<Integer, List<Pending>> bySlot = new LinkedHashMap<>();
        for (Pending request : batch) {
            bySlot.computeIfAbsent(SlotHash.getSlot(request.redisKey), slot -> new ArrayList<>()).add(request);
        }
        bySlot.values().forEach(this::sendInChunks);
    }

    private void sendInChunks(List<Pending> batch) {
        for (int from = 0; from < batch.size(); from += MAX_BATCH) {
            call(batch.subList(from, Math.min(batch.size(), from + MAX_BATCH)));
        }
    }

    private void call(List<Pending> requests) {
        int n = requests.size();
        String[] keys = new String[n];
        long[] args = new long[ARGS_PER_KEY * n];
        for (int i = 0; i < n; i++) {
            Pending request = requests.get(i);
            keys[i] = request.redisKey;
            args[ARGS_PER_KEY * i] = request.limits.capacityMicros();
            args[ARGS_PER_KEY * i + 1] = request.limits.refillMicrosPerMilli();
            args[ARGS_PER_KEY * i + 2] = request.limits.costMicros();
        }
        calls.call(SCRIPT, keys, args).whenComplete((reply, error) -> {
            if (error == null && (reply == null || reply.length != REPLY_FIELDS * n)) {
                error = new IllegalStateException("the token-bucket script answered " + (reply == null ? "nothing"
                        : reply.length + " integers") + " for " + n + " buckets");
            }
            for (int i = 0; i < n; i++) {
                Pending request = requests.get(i);
                if (error != null) {
                    request.completeExceptionally(error);
                } else {
                    request.complete(decision(reply, REPLY_FIELDS * i, request.limits));
                }
            }
        });
    }

    private static Decision decision(long[] reply, int at, BucketLimits limits) {
        return new Decision(reply[at] == 1L, reply[at + 1], limits.capacityTokens(), reply[at + 2], reply[at + 3]);
    }

    /** One request waiting for its decision: the future the caller holds. */
    private static final class Pending extends CompletableFuture<Decision> {

        final String redisKey;
        final BucketLimits limits;

        Pending(String redisKey, BucketLimits limits) {
            this.redisKey = redisKey;
            this.limits = limits;
        }
    }
}
