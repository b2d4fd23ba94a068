package dev.tollgate.redis;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RedisKeys;
import dev.tollgate.core.TokenBucketMath;
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
import io.lettuce.core.cluster.SlotHash;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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
 * <p>Batches: requests made on a Netty event loop are gathered per loop turn ({@link EventLoopBatcher},
 * as {@link RedisBucketStore} does) and decided in one call, up to {@value #MAX_BATCH} requests and 255
 * keys a call, one cluster slot a call (a tenant's keys share one). The script decides them one after
 * the other, each exactly as alone; one {@code TIME}, one {@code HMGET} and at most one {@code HSET}
 * per key serve the whole call. A request's limits travel packed (a struct format and its data), and
 * the script answers each limit's state, from which the outcome is worked out here.
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
    public static final LuaScript SCRIPT = LuaScript.fromResources(RedisBucketStore.REFILL_RESOURCE, SCRIPT_RESOURCE);

    /** Calls for one request at most: the first, and retries with tables that cover what was missing. */
    static final int MAX_ATTEMPTS = 4;
    /** Windows one table may hold at most (a retry after a long step back could ask for many). */
    static final int MAX_TABLE_WINDOWS = 64;

    /** Requests one call decides at most (Lua's stack and the reply stay small). */
    public static final int MAX_BATCH = 64;
    /** Limits one request is charged to at most (the script reads the count from one byte). */
    public static final int MAX_LIMITS = 255;
    /** Distinct keys one call takes at most (the script reads a state's key index from one byte). */
    static final int MAX_KEYS = 255;

    private static final byte KIND_BUCKET = 1;
    private static final byte KIND_FIXED = 2;
    private static final byte KIND_TABLE = 3;
    private static final int REPLY_HEAD = 2;
    private static final int REPLY_PER_LIMIT = 4;
    private static final long STALE = -1;

    private final ScriptCalls calls;
    private final QuotaWindows windows;
    private final boolean arithmeticWhereFixed;
    private final WallClock clock;
    private final Layout layout;
    private final EventLoopBatcher<Request> batcher;

    /**
     * Where a limit's state lives. The script takes any key and field, so this is the adapter's
     * choice alone; both keep a tenant's states in its slot.
     */
    public enum Layout {
        /**
         * Per-route states in {@code rl:{tenant}:route} (field: the limit's name), the tenant's totals
         * in {@code rl:{tenant}}. A route's key expires on its own when its states no longer matter,
         * but every key costs about 100 B of its own in Redis (126-148 B a state in all, against 59-76
         * B with one key per tenant) and two keys per request cost about 30 % more Redis CPU
         * ({@code MultiLimitRedisCostBench}). The alternative, kept tested.
         */
        ROUTE_AND_TENANT_KEYS,
        /**
         * Every state of a tenant in {@code rl:{tenant}}: per-route states in field
         * {@code route:limit} (the route escaped as in keys, so it has no {@code :}; a limit name
         * has none either), totals in field {@code limit}. One key read and written per request, and
         * fewer keys; but the tenant's key lives while any of its fields matters, so the states of
         * routes no longer called stay until the whole key expires (bounded by the routes a gateway
         * serves), and a tenant with more than 127 states leaves the compact listpack encoding.
         * The default ({@link #DEFAULT_LAYOUT}): the only layout within 120 B a state.
         */
        ONE_KEY_PER_TENANT
    }

    /** The layout the gateway uses. */
    public static final Layout DEFAULT_LAYOUT = Layout.ONE_KEY_PER_TENANT;

    private MultiLimitScript(ScriptCalls calls, QuotaWindows windows, boolean arithmeticWhereFixed,
                             WallClock clock, Layout layout, int waitTurns) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.windows = Objects.requireNonNull(windows, "windows");
        this.arithmeticWhereFixed = arithmeticWhereFixed;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.layout = Objects.requireNonNull(layout, "layout");
        if (waitTurns < 0 || waitTurns > RedisBucketStore.MAX_WAIT_TURNS) {
            throw new IllegalArgumentException("waitTurns must be between 0 and " + RedisBucketStore.MAX_WAIT_TURNS
                    + ", was " + waitTurns);
        }
        this.batcher = new EventLoopBatcher<>(waitTurns, MAX_BATCH, this::send);
    }

    /** Quotas in calendar windows; tables built around this machine's clock (epoch ms). */
    public MultiLimitScript(ScriptCalls calls) {
        this(calls, CalendarQuota::windowAt, true, WallClock.system(), DEFAULT_LAYOUT,
                RedisBucketStore.DEFAULT_WAIT_TURNS);
    }

    /** Quotas in calendar windows, states kept in {@code layout}. */
    public MultiLimitScript(ScriptCalls calls, Layout layout) {
        this(calls, layout, RedisBucketStore.DEFAULT_WAIT_TURNS);
    }

    /**
     * Quotas in calendar windows, states kept in {@code layout}; a loop's batch waits at most
     * {@code waitTurns} more turns of its loop (as {@link RedisBucketStore#RedisBucketStore(ScriptCalls, int)}).
     */
    public MultiLimitScript(ScriptCalls calls, Layout layout, int waitTurns) {
        this(calls, CalendarQuota::windowAt, true, WallClock.system(), layout, waitTurns);
    }

    /**
     * Quotas in the windows {@code windows} gives, always sent as tables built around {@code clock}:
     * how a test drives the script over windows short enough to cross many of them.
     */
    public static MultiLimitScript withWindowTables(ScriptCalls calls, QuotaWindows windows, WallClock clock) {
        return withWindowTables(calls, windows, clock, DEFAULT_LAYOUT);
    }

    /** As {@link #withWindowTables(ScriptCalls, QuotaWindows, WallClock)}, states kept in {@code layout}. */
    public static MultiLimitScript withWindowTables(ScriptCalls calls, QuotaWindows windows, WallClock clock,
                                                    Layout layout) {
        return new MultiLimitScript(calls, windows, false, clock, layout, RedisBucketStore.DEFAULT_WAIT_TURNS);
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

    /** The Redis key of a limit's state in the default layout: {@code rl:{tenant}}. */
    public static String redisKey(LimitKey key) {
        return redisKey(key, DEFAULT_LAYOUT);
    }

    /** The hash field of a limit's state in the default layout: {@code route:limit}, or {@code limit} for a tenant's total. */
    public static String field(LimitKey key) {
        return field(key, DEFAULT_LAYOUT);
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
     * Decides one request's {@code charges} (all of one tenant, at least one, at most
     * {@value #MAX_LIMITS}) in one script call (more only after a stale-windows answer). On a Netty event
     * loop the request joins that loop's batch ({@link EventLoopBatcher}): the requests that arrive
     * together are decided in one call, each exactly as it would be alone.
     */
    public CompletableFuture<Reply> decide(List<LimitCharge> charges) {
        Request request = request(charges);
        batcher.add(request);
        return request;
    }

    /**
     * Decides {@code copies} identical requests of {@code charges} (1 to {@value #MAX_BATCH}) in one
     * call, without waiting for a loop's batch: a multi-limit lease ({@link RedisMultiLimitLeaseSource}).
     * The script decides them one after the other at one instant, each all or nothing and exactly as
     * alone; the first rejected changes nothing, so every later copy is rejected too. A copy whose
     * windows were stale is asked again on its own (still all or nothing, maybe not at the same instant).
     */
    public CompletableFuture<List<Reply>> decideCopies(List<LimitCharge> charges, int copies) {
        if (copies < 1 || copies > MAX_BATCH) {
            throw new IllegalArgumentException("copies must be between 1 and " + MAX_BATCH + ", was " + copies);
        }
        List<CompletableFuture<Reply>> replies = decideTogether(Collections.nCopies(copies, charges));
        return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> replies.stream().map(CompletableFuture::join).toList());
    }

    /** Where this script keeps limit states. */
    public Layout layout() {
        return layout;
    }

    /**
     * Decides several requests together, in as few calls as the limits allow (one per slot and
     * {@value #MAX_BATCH} requests), without waiting for a loop's batch: for benchmarks and tests.
     * A request whose windows were stale is asked again on its own.
     */
    List<CompletableFuture<Reply>> decideTogether(List<List<LimitCharge>> requests) {
        List<Request> batch = new ArrayList<>(requests.size());
        for (List<LimitCharge> charges : requests) {
            batch.add(request(charges));
        }
        send(batch);
        return List.copyOf(batch);
    }

    private Request request(List<LimitCharge> charges) {
        if (charges.isEmpty()) {
            throw new IllegalArgumentException("a request is charged to one limit at least");
        }
        if (charges.size() > MAX_LIMITS) {
            throw new IllegalArgumentException("a request is charged to " + MAX_LIMITS + " limits at most, not "
                    + charges.size());
        }
        String tenant = charges.get(0).key().tenant();
        String[] keys = new String[charges.size()];
        String[] fields = new String[charges.size()];
        for (int i = 0; i < keys.length; i++) {
            LimitCharge charge = charges.get(i);
            if (!charge.key().tenant().equals(tenant)) {
                throw new IllegalArgumentException("one request's limits are one tenant's (one slot): "
                        + tenant + " and " + charge.key().tenant());
            }
            keys[i] = redisKey(charge.key(), layout);
            fields[i] = field(charge.key(), layout);
        }
        long gatewayNow = clock.currentTimeMillis();
        long[][] cover = new long[charges.size()][];
        for (int i = 0; i < cover.length; i++) {
            cover[i] = new long[] {gatewayNow, gatewayNow};
        }
        return new Request(List.copyOf(charges), keys, fields, cover);
    }

    /** One request waiting for its decision: the future its caller holds. */
    private static final class Request extends CompletableFuture<Reply> {

        final List<LimitCharge> charges;
        /** Each charge's Redis key and hash field. */
        final String[] keys;
        final String[] fields;
        /** Per charge, the instants its window table must cover (grows after stale answers). */
        long[][] cover;
        int attempt = 1;
        /** The request's arguments in the call being built: struct format and packed data. */
        byte[] format;
        byte[] data;
        /** Where in {@link #data} each limit's state index goes. */
        final int[] stateOffsets;

        Request(List<LimitCharge> charges, String[] keys, String[] fields, long[][] cover) {
            this.charges = charges;
            this.keys = keys;
            this.fields = fields;
            this.cover = cover;
            this.stateOffsets = new int[charges.size()];
        }
    }

    private void send(List<Request> batch) {
        if (!calls.isCluster()) {
            sendInCalls(batch);
            return;
        }
        Map<Integer, List<Request>> bySlot = new LinkedHashMap<>();
        for (Request request : batch) {
            bySlot.computeIfAbsent(SlotHash.getSlot(request.keys[0]), slot -> new ArrayList<>()).add(request);
        }
        bySlot.values().forEach(this::sendInCalls);
    }

    /** Splits a batch (one slot) into calls of at most {@value #MAX_BATCH} requests and 255 keys. */
    private void sendInCalls(List<Request> batch) {
        Call call = new Call();
        for (Request request : batch) {
            try {
                pack(request);
            } catch (RuntimeException e) {
                request.completeExceptionally(e);
                continue;
            }
            if (!call.fits(request)) {
                call.send();
                call = new Call();
            }
            call.add(request);
        }
        if (!call.requests.isEmpty()) {
            call.send();
        }
    }

    /**
     * The arguments of one script call: the batch's distinct keys (KEYS), its distinct states (a key
     * and a field each), and each request's packed limits. See {@code multi_limit.lua} for the layout.
     */
    private final class Call {

        final List<Request> requests = new ArrayList<>();
        final Map<String, Integer> keyIndex = new LinkedHashMap<>();
        final Map<String, Integer> stateIndex = new HashMap<>();
        final ByteArrayOutputStream stateKeys = new ByteArrayOutputStream();
        final List<byte[]> stateFields = new ArrayList<>();
        int replyLength;

        boolean fits(Request request) {
            if (requests.isEmpty()) {
                return true;
            }
            if (requests.size() >= MAX_BATCH) {
                return false;
            }
            int newKeys = 0;
            for (String key : request.keys) {
                if (!keyIndex.containsKey(key)) {
                    newKeys++; // may count a key twice: only ever too cautious
                }
            }
            return keyIndex.size() + newKeys <= MAX_KEYS;
        }

        void add(Request request) {
            requests.add(request);
            replyLength += REPLY_HEAD + REPLY_PER_LIMIT * request.charges.size();
            ByteBuffer data = ByteBuffer.wrap(request.data);
            for (int i = 0; i < request.keys.length; i++) {
                String key = request.keys[i];
                Integer ki = keyIndex.get(key);
                if (ki == null) {
                    ki = keyIndex.size() + 1;
                    keyIndex.put(key, ki);
                }
                String state = key + '\u0000' + request.fields[i];
                Integer si = stateIndex.get(state);
                if (si == null) {
                    si = stateIndex.size() + 1;
                    stateIndex.put(state, si);
                    stateKeys.write(ki);
                    stateFields.add(request.fields[i].getBytes(StandardCharsets.UTF_8));
                }
                data.putShort(request.stateOffsets[i], (short) (int) si);
            }
        }

        void send() {
            List<Request> sent = List.copyOf(requests);
            String[] keys = keyIndex.keySet().toArray(String[]::new);
            byte[][] args = new byte[1 + stateFields.size() + 2 * sent.size()][];
            args[0] = stateKeys.toByteArray();
            int at = 1;
            for (byte[] field : stateFields) {
                args[at++] = field;
            }
            for (Request request : sent) {
                args[at++] = request.format;
                args[at++] = request.data;
            }
            int expected = replyLength;
            calls.call(SCRIPT, keys, args).whenComplete((reply, error) -> replied(sent, expected, reply, error));
        }
    }

    private void replied(List<Request> requests, int expected, long[] reply, Throwable error) {
        if (error == null && (reply == null || reply.length != expected)) {
            error = new IllegalStateException("the multi-limit script answered " + (reply == null ? "nothing"
                    : reply.length + " integers") + " where " + expected + " were due");
        }
        int at = 0;
        for (Request request : requests) {
            int n = request.charges.size();
            if (error != null) {
                request.completeExceptionally(ScriptCalls.failureOf(error));
                continue;
            }
            try {
                if (reply[at] == STALE) {
                    retry(request, reply[at + 1], (int) reply[at + 2] - 1, reply[at + 3]);
                } else {
                    request.complete(new Reply(reply[at + 1], decision(request.charges, reply, at), request.attempt));
                }
            } catch (RuntimeException e) {
                request.completeExceptionally(e);
            }
            at += REPLY_HEAD + REPLY_PER_LIMIT * n;
        }
    }

    /**
     * Asks again after a stale-windows answer, with tables around Redis's clock now; a limit that
     * asked for a later instant (a count kept for a later window) keeps covering it on every further
     * attempt.
     */
    private void retry(Request request, long redisNow, int limit, long uncovered) {
        if (request.attempt >= MAX_ATTEMPTS) {
            throw new IllegalStateException("the multi-limit script found its quota windows stale "
                    + request.attempt + " times (Redis's clock " + redisNow + " ms)");
        }
        long[][] cover = request.cover;
        for (int i = 0; i < cover.length; i++) {
            long needed = i == limit ? uncovered : cover[i][1];
            cover[i] = new long[] {Math.min(redisNow, needed), Math.max(redisNow, needed)};
        }
        request.attempt++;
        batcher.add(request);
    }

    /**
     * Packs a request's limits (struct format and data, see {@code multi_limit.lua}); each limit's
     * state index is filled in when the request joins a call.
     */
    private void pack(Request request) {
        List<LimitCharge> charges = request.charges;
        StringBuilder format = new StringBuilder(">B");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * charges.size());
        DataOutputStream data = new DataOutputStream(bytes); // big-endian, as the script reads
        try {
            data.writeByte(charges.size());
            for (int i = 0; i < charges.size(); i++) {
                LimitCharge charge = charges.get(i);
                int shadow = charge.limit().shadow() ? 1 : 0;
                request.stateOffsets[i] = data.size();
                data.writeShort(0); // the state index, once the request joins a call
                if (charge.limit().allowance() instanceof TokenBucket bucket) {
                    BucketLimits limits = bucket.limits(charge.cost());
                    format.append("HBBdddd");
                    data.writeByte(KIND_BUCKET);
                    data.writeByte(shadow);
                    data.writeDouble(limits.capacityMicros());
                    data.writeDouble(limits.refillMicrosPerMilli());
                    data.writeDouble(limits.costMicros());
                    data.writeDouble(limits.millisToFill());
                    continue;
                }
                CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
                if (arithmeticWhereFixed && WindowTable.isArithmetic(quota.period(), quota.zone())) {
                    format.append("HBBdddd");
                    data.writeByte(KIND_FIXED);
                    data.writeByte(shadow);
                    data.writeDouble(quota.quota());
                    data.writeDouble(charge.cost());
                    data.writeDouble(quota.period().fixedMillis());
                    data.writeDouble(WindowTable.fixedOffsetSeconds(quota.zone()) * 1000L);
                } else {
                    long[] bounds = boundaries(quota, request.cover[i][0], request.cover[i][1]);
                    format.append("HBBddH").append("d".repeat(bounds.length));
                    data.writeByte(KIND_TABLE);
                    data.writeByte(shadow);
                    data.writeDouble(quota.quota());
                    data.writeDouble(charge.cost());
                    data.writeShort(bounds.length);
                    for (long bound : bounds) {
                        data.writeDouble(bound);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot happen: writes to memory", e);
        }
        request.format = format.toString().getBytes(StandardCharsets.US_ASCII);
        request.data = bytes.toByteArray();
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

    /**
     * The decision of a request whose reply starts at {@code from}: the script reports each limit's
     * state (as left if admitted, as found if not), and the outcome is worked out here with the
     * reference's arithmetic ({@link TokenBucketMath}, the window's end), exactly as it would.
     */
    private static MultiLimitDecision decision(List<LimitCharge> charges, long[] reply, int from) {
        int n = charges.size();
        if (reply[from] != 0 && reply[from] != 1) {
            throw new IllegalStateException("the multi-limit script answered " + reply[from] + " for admitted");
        }
        long now = reply[from + 1];
        List<LimitOutcome> outcomes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            LimitCharge charge = charges.get(i);
            int at = from + REPLY_HEAD + REPLY_PER_LIMIT * i;
            boolean room = reply[at] == 1;
            if (charge.limit().allowance() instanceof TokenBucket bucket) {
                outcomes.add(LimitOutcome.ofBucket(charge, room, reply[at + 1], reply[at + 2], bucket.limits(charge.cost())));
            } else {
                CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
                CalendarWindow window = new CalendarWindow(quota.period(), quota.zone(), reply[at + 2], reply[at + 3]);
                outcomes.add(LimitOutcome.ofQuota(charge, room, reply[at + 1], quota, quota.quota(), window, now));
            }
        }
        return new MultiLimitDecision(reply[from] == 1, outcomes);
    }


}
