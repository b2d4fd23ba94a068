package dev.tollgate.redis;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.core.limits.MultiLimitLeaseSource;
import dev.tollgate.core.limits.TokenBucket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Multi-limit leases on the states {@link MultiLimitScript} keeps: a take is one call of
 * {@code multi_limit.lua} deciding {@code k} copies of the request ({@link MultiLimitScript#decideCopies}),
 * so a lease is exactly {@code k} requests the script admitted, each all or nothing, by the same code
 * and arithmetic as every other multi-limit decision; a give-back is one call of
 * {@code multi_limit_return.lua}. Both on the tenant's keys (one slot), through {@link ScriptCalls}
 * (deadline, breaker, NOSCRIPT recovery).
 */
public final class RedisMultiLimitLeaseSource implements MultiLimitLeaseSource {

    public static final String RETURN_SCRIPT_RESOURCE = "dev/tollgate/redis/multi_limit_return.lua";
    private static final LuaScript RETURN = LuaScript.fromResource(RETURN_SCRIPT_RESOURCE);

    private static final int KIND_BUCKET = 1;
    private static final int KIND_QUOTA = 2;

    private final MultiLimitScript script;
    private final ScriptCalls calls;

    /** {@code calls}: the connection {@code script} uses. */
    public RedisMultiLimitLeaseSource(MultiLimitScript script, ScriptCalls calls) {
        this.script = script;
        this.calls = calls;
    }

    @Override
    public int maxRequests() {
        return MultiLimitScript.MAX_BATCH;
    }

    @Override
    public CompletionStage<Grant> takeUpTo(List<LimitCharge> charges, int requests) {
        return script.decideCopies(charges, requests).thenApply(replies -> {
            List<MultiLimitDecision> admitted = new ArrayList<>(replies.size());
            MultiLimitDecision rejection = null;
            long now = Long.MIN_VALUE;
            for (MultiLimitScript.Reply reply : replies) {
                now = Math.max(now, reply.nowMillis());
                if (reply.decision().admitted()) {
                    admitted.add(reply.decision());
                } else if (rejection == null) {
                    rejection = reply.decision();
                }
            }
            return new Grant(charges, admitted, rejection, now);
        });
    }

    @Override
    public CompletionStage<Void> giveBack(Grant grant, List<MultiLimitDecision> unspent) {
        // Per state and bound (a quota's window): what the unspent requests took from it.
        Map<List<Object>, long[]> amounts = new LinkedHashMap<>();
        for (MultiLimitDecision decision : unspent) {
            for (LimitOutcome outcome : decision.outcomes()) {
                if (!outcome.admits()) {
                    continue; // a shadow limit without room was not charged
                }
                LimitCharge charge = outcome.charge();
                String key = MultiLimitScript.redisKey(charge.key(), script.layout());
                String field = MultiLimitScript.field(charge.key(), script.layout());
                long amount;
                List<Object> state;
                if (charge.limit().allowance() instanceof TokenBucket bucket) {
                    BucketLimits limits = bucket.limits(charge.cost());
                    amount = limits.costMicros();
                    state = List.of(key, field, KIND_BUCKET, limits.capacityMicros());
                } else {
                    amount = charge.cost();
                    state = List.of(key, field, KIND_QUOTA, outcome.window().startMillis());
                }
                amounts.computeIfAbsent(state, s -> new long[1])[0] += amount;
            }
        }
        if (amounts.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Map<String, Integer> keys = new LinkedHashMap<>();
        byte[][] args = new byte[5 * amounts.size()][];
        int at = 0;
        for (Map.Entry<List<Object>, long[]> entry : amounts.entrySet()) {
            List<Object> state = entry.getKey();
            int index = keys.computeIfAbsent((String) state.get(0), k -> keys.size() + 1);
            args[at++] = text(index);
            args[at++] = ((String) state.get(1)).getBytes(StandardCharsets.UTF_8);
            args[at++] = text(state.get(2));
            args[at++] = text(entry.getValue()[0]);
            args[at++] = text(state.get(3));
        }
        return calls.call(RETURN, keys.keySet().toArray(String[]::new), args).thenApply(changed -> null);
    }

    private static byte[] text(Object number) {
        return String.valueOf(number).getBytes(StandardCharsets.US_ASCII);
    }
}
