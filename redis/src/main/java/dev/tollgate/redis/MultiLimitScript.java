package dev.tollgate.redis;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RedisKeys;
import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.CalendarWindow;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitKey;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.core.limits.ReferenceLimitEvaluator.QuotaWindows;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.core.limits.WindowTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Decides every limit of one request in one call of {@code multi_limit.lua}, all or nothing, on
 * Redis's clock: the Redis side of {@link dev.tollgate.core.limits.ReferenceLimitEvaluator}, whose
 * steps the script follows exactly. Calls go through {@link ScriptCalls} (deadline, breaker, NOSCRIPT
 * recovery in one place).
 *
 * <p>Keys: per-route states (scopes {@code route} and {@code each-route}) are fields of
 * {@code rl:{tenant}:route}, the tenant-total states fields of {@code rl:{tenant}}; the field is the
 * limit's name. Both keys carry the tenant's hash tag, so one request's keys are in one cluster slot.
 *
 * <p>Quota windows: for UTC and fixed offsets (minute, hour, day) the script computes them; otherwise
 * it is sent a window table around this gateway's clock (the previous, current and next windows). If
 * Redis's clock lies outside the table, or a count is kept for a later window than the table holds
 * (Redis's clock stepped back), the script decides nothing and says which instant it needs; the call
 * is then made again with a table that covers it, at most {@value #MAX_ATTEMPTS} times in all.
 */
public final class MultiLimitScript {

    public static final String SCRIPT_RESOURCE = "dev/tollgate/redis/multi_limit.lua";
    public static final LuaScript SCRIPT = LuaScript.fromResource(SCRIPT_RESOURCE);

    /** Calls for one request at most: the first, and retries with tables that cover what was missing. */
    static final int MAX_ATTEMPTS = 4;
    /** Windows one table may hold at most (a retry after a long step back could ask for many). */
    static final int MAX_TABLE_WINDOWS = 64;

    private static final int REPLY_HEAD = 2;
    private static final int REPLY_PER_LIMIT = 6;
    private static final long STALE = -1;

    private final ScriptCalls calls;
    private final QuotaWindows windows;
    private final boolean arithmeticWhereFixed;
    private final WallClock clock;
    private final Layout layout;

    /**
     * Where a limit's state lives. The script takes any key and field, so this is the adapter's
     * choice alone; both keep a tenant's states in its slot.
     */
    public enum Layout {
        /**
         * The draft's: per-route states in {@code rl:{tenant}:route} (field: the limit's name), the
         * tenant's totals in {@code rl:{tenant}}. A route's key expires on its own when its states no
         * longer matter.
         */
        ROUTE_AND_TENANT_KEYS,
        /**
         * Every state of a tenant in {@code rl:{tenant}}: per-route states in field
         * {@code route:limit} (the route escaped as in keys, so it has no {@code :}; a limit name
         * has none either), totals in field {@code limit}. One key read and written per request, and
         * fewer keys; but the tenant's key lives while any of its fields matters, so the states of
         * routes no longer called stay until the whole key expires (bounded by the routes a gateway
         * serves), and a tenant with more than 127 states leaves the compact listpack encoding.
         * Measured beside the other in {@code MultiLimitRedisCostBench}; not the default.
         */
        ONE_KEY_PER_TENANT
    }

    private MultiLimitScript(ScriptCalls calls, QuotaWindows windows, boolean arithmeticWhereFixed,
                             WallClock clock, Layout layout) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.windows = Objects.requireNonNull(windows, "windows");
        this.arithmeticWhereFixed = arithmeticWhereFixed;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.layout = Objects.requireNonNull(layout, "layout");
    }

    /** Quotas in calendar windows; tables built around this machine's clock (epoch ms). */
    public MultiLimitScript(ScriptCalls calls) {
        this(calls, CalendarQuota::windowAt, true, WallClock.system(), Layout.ROUTE_AND_TENANT_KEYS);
    }

    /** Quotas in calendar windows, states kept in {@code layout}. */
    public MultiLimitScript(ScriptCalls calls, Layout layout) {
        this(calls, CalendarQuota::windowAt, true, WallClock.system(), layout);
    }

    /**
     * Quotas in the windows {@code windows} gives, always sent as tables built around {@code clock}:
     * how a test drives the script over windows short enough to cross many of them.
     */
    public static MultiLimitScript withWindowTables(ScriptCalls calls, QuotaWindows windows, WallClock clock) {
        return withWindowTables(calls, windows, clock, Layout.ROUTE_AND_TENANT_KEYS);
    }

    /** As {@link #withWindowTables(ScriptCalls, QuotaWindows, WallClock)}, states kept in {@code layout}. */
    public static MultiLimitScript withWindowTables(ScriptCalls calls, QuotaWindows windows, WallClock clock,
                                                    Layout layout) {
        return new MultiLimitScript(calls, windows, false, clock, layout);
    }

    /**
     * The decision and the instant (Redis's clock, epoch ms) it was made at.
     *
     * @param nowMillis Redis's {@code TIME} as the script read it
     * @param decision  the outcome of every limit, in the request's order
     * @param attempts  script calls it took (more than 1 after a stale-windows answer)
     */
    public record Reply(long nowMillis, MultiLimitDecision decision, int attempts) {
    }

    /** The Redis key of a limit's state: {@code rl:{tenant}:route}, or {@code rl:{tenant}} for a tenant's total. */
    public static String redisKey(LimitKey key) {
        return redisKey(key, Layout.ROUTE_AND_TENANT_KEYS);
    }

    /** The Redis key of a limit's state in {@code layout}. */
    public static String redisKey(LimitKey key, Layout layout) {
        if (layout == Layout.ONE_KEY_PER_TENANT) {
            return RedisKeys.BUCKET_PREFIX + '{' + RedisKeys.escape(key.tenant()) + '}';
        }
        return key.isWholeTenant()
                ? RedisKeys.BUCKET_PREFIX + '{' + RedisKeys.escape(key.tenant()) + '}'
                : RedisKeys.bucket(key.tenant(), key.route());
    }

    /** The hash field of a limit's state in {@code layout}. */
    public static String field(LimitKey key, Layout layout) {
        return layout == Layout.ONE_KEY_PER_TENANT && !key.isWholeTenant()
                ? RedisKeys.escape(key.route()) + ':' + key.limit()
                : key.limit();
    }

    /**
     * Decides one request's {@code charges} (all of one tenant, at least one) in one script call
     * (more only after a stale-windows answer).
     */
    public CompletableFuture<Reply> decide(List<LimitCharge> charges) {
        if (charges.isEmpty()) {
            throw new IllegalArgumentException("a request is charged to one limit at least");
        }
        String tenant = charges.get(0).key().tenant();
        Map<String, Integer> keyIndex = new LinkedHashMap<>();
        for (LimitCharge charge : charges) {
            if (!charge.key().tenant().equals(tenant)) {
                throw new IllegalArgumentException("one request's limits are one tenant's (one slot): "
                        + tenant + " and " + charge.key().tenant());
            }
            keyIndex.putIfAbsent(redisKey(charge.key(), layout), keyIndex.size() + 1);
        }
        String[] keys = keyIndex.keySet().toArray(String[]::new);
        long gatewayNow = clock.currentTimeMillis();
        long[][] cover = new long[charges.size()][];
        for (int i = 0; i < cover.length; i++) {
            cover[i] = new long[] {gatewayNow, gatewayNow};
        }
        CompletableFuture<Reply> result = new CompletableFuture<>();
        attempt(charges, keyIndex, keys, cover, 1, result);
        return result;
    }

    private void attempt(List<LimitCharge> charges, Map<String, Integer> keyIndex, String[] keys, long[][] cover,
                         int attempt, CompletableFuture<Reply> result) {
        String[] args;
        try {
            args = arguments(charges, keyIndex, cover);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        calls.call(SCRIPT, keys, args).whenComplete((reply, error) -> {
            if (error != null) {
                result.completeExceptionally(ScriptCalls.failureOf(error));
                return;
            }
            try {
                if (reply != null && reply.length == 4 && reply[0] == STALE) {
                    if (attempt >= MAX_ATTEMPTS) {
                        throw new IllegalStateException("the multi-limit script found its quota windows stale "
                                + attempt + " times (Redis's clock " + reply[1] + " ms)");
                    }
                    // Tables around Redis's clock now; a limit that asked for a later instant (a count
                    // kept for a later window) keeps covering it on every further attempt.
                    long redisNow = reply[1];
                    int limit = (int) reply[2] - 1;
                    long uncovered = reply[3];
                    for (int i = 0; i < cover.length; i++) {
                        long needed = i == limit ? uncovered : cover[i][1];
                        cover[i] = new long[] {Math.min(redisNow, needed), Math.max(redisNow, needed)};
                    }
                    attempt(charges, keyIndex, keys, cover, attempt + 1, result);
                    return;
                }
                result.complete(new Reply(reply[1], decision(charges, reply), attempt));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
    }

    private String[] arguments(List<LimitCharge> charges, Map<String, Integer> keyIndex, long[][] cover) {
        List<String> args = new ArrayList<>(1 + 12 * charges.size());
        args.add(Integer.toString(charges.size()));
        for (int i = 0; i < charges.size(); i++) {
            LimitCharge charge = charges.get(i);
            args.add(Integer.toString(keyIndex.get(redisKey(charge.key(), layout))));
            args.add(field(charge.key(), layout));
            if (charge.limit().allowance() instanceof TokenBucket bucket) {
                BucketLimits limits = bucket.limits(charge.cost());
                args.add("b");
                args.add(charge.limit().shadow() ? "1" : "0");
                args.add(Long.toString(limits.capacityMicros()));
                args.add(Long.toString(limits.refillMicrosPerMilli()));
                args.add(Long.toString(limits.costMicros()));
            } else {
                CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
                boolean arithmetic = arithmeticWhereFixed && WindowTable.isArithmetic(quota.period(), quota.zone());
                args.add(arithmetic ? "f" : "t");
                args.add(charge.limit().shadow() ? "1" : "0");
                args.add(Long.toString(quota.quota()));
                args.add(Long.toString(charge.cost()));
                if (arithmetic) {
                    args.add(Long.toString(quota.period().fixedMillis()));
                    args.add(Long.toString(WindowTable.fixedOffsetSeconds(quota.zone()) * 1000L));
                } else {
                    long[] bounds = boundaries(quota, cover[i][0], cover[i][1]);
                    args.add(Integer.toString(bounds.length));
                    for (long bound : bounds) {
                        args.add(Long.toString(bound));
                    }
                }
            }
        }
        return args.toArray(String[]::new);
    }

    /**
     * The window boundaries from the window before the one holding {@code from} to the window after
     * the one holding {@code to}: with {@code from == to}, {@link WindowTable#boundariesAround}'s four.
     */
    long[] boundaries(CalendarQuota quota, long from, long to) {
        CalendarWindow first = windows.windowAt(quota, from);
        CalendarWindow window = windows.windowAt(quota, first.startMillis() - 1);
        List<Long> bounds = new ArrayList<>();
        bounds.add(window.startMillis());
        boolean pastTo = false;
        while (true) {
            window = windows.windowAt(quota, window.endMillis());
            bounds.add(window.startMillis());
            if (pastTo) {
                bounds.add(window.endMillis());
                break;
            }
            pastTo = window.contains(to);
            if (bounds.size() > MAX_TABLE_WINDOWS) {
                throw new IllegalStateException("a window table from " + from + " to " + to + " would hold more than "
                        + MAX_TABLE_WINDOWS + " windows of " + quota);
            }
        }
        return bounds.stream().mapToLong(Long::longValue).toArray();
    }

    private static MultiLimitDecision decision(List<LimitCharge> charges, long[] reply) {
        int n = charges.size();
        if (reply == null || reply.length != REPLY_HEAD + REPLY_PER_LIMIT * n || (reply[0] != 0 && reply[0] != 1)) {
            throw new IllegalStateException("the multi-limit script answered " + (reply == null ? "nothing"
                    : reply.length + " integers") + " for " + n + " limits");
        }
        List<LimitOutcome> outcomes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            LimitCharge charge = charges.get(i);
            int at = REPLY_HEAD + REPLY_PER_LIMIT * i;
            boolean room = reply[at] == 1;
            long remaining = reply[at + 1];
            long retry = reply[at + 2];
            long reset = reply[at + 3];
            long limit;
            CalendarWindow window = null;
            if (charge.limit().allowance() instanceof TokenBucket bucket) {
                limit = bucket.limits(charge.cost()).capacityTokens();
            } else {
                CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
                limit = quota.quota();
                window = new CalendarWindow(quota.period(), quota.zone(), reply[at + 4], reply[at + 5]);
            }
            // floor(floor(micro-tokens / 10^6) / cost) = floor(micro-tokens / (cost × 10^6)): exact.
            outcomes.add(new LimitOutcome(charge, room, remaining, limit, remaining / charge.cost(), retry, reset,
                    window));
        }
        return new MultiLimitDecision(reply[0] == 1, outcomes);
    }
}
