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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
 * per key serve the whole call. The call's distinct limit definitions travel once, packed, and each
 * request's limits as (state, definition) byte pairs; the script answers each limit's state, from
 * which the outcome is worked out here.
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
    /** Distinct states (key and field) one call takes at most (a limit names its state in one byte). */
    static final int MAX_STATES = 255;
    /** Distinct limit definitions one call takes at most (a limit names its definition in one byte). */
    static final int MAX_DEFINITIONS = 255;

    private static final byte KIND_BUCKET = 1;
    private static final byte KIND_FIXED = 2;
    private static final byte KIND_TABLE = 3;
    /** A limit definition's struct format (without the byte order) and length. */
    private static final String DEFINITION_FORMAT = "BBdddd";
    private static final int DEFINITION_BYTES = 2 + 4 * 8;
    private static final int REPLY_PER_BUCKET = 2;
    private static final int REPLY_PER_QUOTA = 3;
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
         * B with one key per tenant); Redis CPU per decision about the same as one key's
         * ({@code MultiLimitRedisCostBench}, within its noise). The alternative, kept tested.
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
        String[] states = new String[charges.size()];
        // With one key per tenant every limit's key is the same: escaped and built once.
        String tenantKey = layout == Layout.ONE_KEY_PER_TENANT ? redisKey(charges.get(0).key(), layout) : null;
        for (int i = 0; i < keys.length; i++) {
            LimitCharge charge = charges.get(i);
            if (!charge.key().tenant().equals(tenant)) {
                throw new IllegalArgumentException("one request's limits are one tenant's (one slot): "
                        + tenant + " and " + charge.key().tenant());
            }
            keys[i] = tenantKey != null ? tenantKey : redisKey(charge.key(), layout);
            fields[i] = field(charge.key(), layout);
            states[i] = keys[i] + '\u0000' + fields[i];
        }
        long gatewayNow = clock.currentTimeMillis();
        long[][] cover = new long[charges.size()][];
        for (int i = 0; i < cover.length; i++) {
            cover[i] = new long[] {gatewayNow, gatewayNow};
        }
        return new Request(List.copyOf(charges), keys, fields, states, cover);
    }

    /** One request waiting for its decision: the future its caller holds. */
    private static final class Request extends CompletableFuture<Reply> {

        final List<LimitCharge> charges;
        /** Each charge's Redis key and hash field. */
        final String[] keys;
        final String[] fields;
        /** Each charge's state as a call's map key: key + NUL + field. */
        final String[] stateKeys;
        /** Per charge, the instants its window table must cover (grows after stale answers). */
        long[][] cover;
        int attempt = 1;
        /** Each charge's limit definition as the script reads it (see {@link #pack}), for the call being built. */
        final byte[][] definitions;
        /** Each charge's definition (and window table) as a call's map key, see {@link #definitionKey}. */
        final String[] definitionKeys;
        /** Each charge's window table (its boundaries as the script reads them), null for other limits. */
        final byte[][] tables;
        /** Whether one state (key and field) is charged twice by this request. */
        boolean repeats;
        /** Each charge's state and definition in the call being built (the call's own numbering). */
        final int[] states;
        final int[] definitionIndexes;

        Request(List<LimitCharge> charges, String[] keys, String[] fields, String[] stateKeys, long[][] cover) {
            this.charges = charges;
            this.keys = keys;
            this.fields = fields;
            this.stateKeys = stateKeys;
            this.cover = cover;
            this.definitions = new byte[charges.size()][];
            this.definitionKeys = new String[charges.size()];
            this.tables = new byte[charges.size()][];
            this.states = new int[charges.size()];
            this.definitionIndexes = new int[charges.size()];
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

    /**
     * Splits a batch (one slot) into calls of at most {@value #MAX_BATCH} requests, 255 keys, 255
     * states and 255 limit definitions.
     */
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
     * and a field each, a key's states one after the other), its distinct limit definitions, and each
     * request's limits as (state, definition) pairs. See {@code multi_limit.lua} for the layout.
     */
    private final class Call {

        final List<Request> requests = new ArrayList<>();
        final Map<String, Integer> keyIndex = new LinkedHashMap<>();
        /** key index - 1 -> its states' fields, in the order first seen (a state's number here: its position). */
        final List<List<String>> keyStates = new ArrayList<>();
        /** key + NUL + field -> the state's provisional number (key index * 256 + position). */
        final Map<String, Integer> stateIndex = new HashMap<>();
        final Map<String, Integer> definitionIndex = new LinkedHashMap<>();
        final ByteArrayOutputStream definitions = new ByteArrayOutputStream();
        int definitionCount;
        final List<byte[]> tables = new ArrayList<>();
        int limits;

        boolean fits(Request request) {
            if (requests.isEmpty()) {
                return true;
            }
            if (requests.size() >= MAX_BATCH) {
                return false;
            }
            int newKeys = 0;
            int newStates = 0;
            int newDefinitions = 0;
            for (int i = 0; i < request.keys.length; i++) {
                String key = request.keys[i];
                if (!keyIndex.containsKey(key)) {
                    newKeys++; // may count a key, state or definition twice: only ever too cautious
                }
                if (!stateIndex.containsKey(request.stateKeys[i])) {
                    newStates++;
                }
                if (!definitionIndex.containsKey(request.definitionKeys[i])) {
                    newDefinitions++;
                }
            }
            return keyIndex.size() + newKeys <= MAX_KEYS && stateIndex.size() + newStates <= MAX_STATES
                    && definitionCount + newDefinitions <= MAX_DEFINITIONS;
        }

        void add(Request request) {
            requests.add(request);
            limits += request.charges.size();
            for (int i = 0; i < request.keys.length; i++) {
                String key = request.keys[i];
                Integer ki = keyIndex.get(key);
                if (ki == null) {
                    ki = keyIndex.size() + 1;
                    keyIndex.put(key, ki);
                    keyStates.add(new ArrayList<>());
                }
                String state = request.stateKeys[i];
                Integer si = stateIndex.get(state);
                if (si == null) {
                    List<String> fields = keyStates.get(ki - 1);
                    si = ki * 256 + fields.size();
                    fields.add(request.fields[i]);
                    stateIndex.put(state, si);
                }
                request.states[i] = si;
                String definition = request.definitionKeys[i];
                Integer di = definitionIndex.get(definition);
                if (di == null) {
                    di = ++definitionCount;
                    definitionIndex.put(definition, di);
                    byte[] bytes = request.definitions[i];
                    if (request.tables[i] != null) {
                        tables.add(request.tables[i]);
                        bytes = bytes.clone();
                        ByteBuffer.wrap(bytes).putDouble(DEFINITION_BYTES - 8, tables.size()); // which table: p4
                    }
                    definitions.writeBytes(bytes);
                }
                request.definitionIndexes[i] = di;
            }
        }

        void send() {
            List<Request> sent = List.copyOf(requests);
            String[] keys = keyIndex.keySet().toArray(String[]::new);
            // The states numbered a key's one after the other, as the script reads them.
            int[] firstState = new int[keys.length + 1];
            byte[] stateKeys = new byte[stateIndex.size()];
            List<byte[]> fields = new ArrayList<>(stateIndex.size());
            for (int k = 0; k < keys.length; k++) {
                firstState[k + 1] = fields.size() + 1;
                for (String field : keyStates.get(k)) {
                    stateKeys[fields.size()] = (byte) (k + 1);
                    fields.add(field.getBytes(StandardCharsets.UTF_8));
                }
            }
            // ARGV[1]: the number of states, each state's key index, then the requests' bytes.
            byte[] bytes = new byte[1 + stateKeys.length + 2 * sent.size() + 2 * limits];
            bytes[0] = (byte) stateKeys.length;
            System.arraycopy(stateKeys, 0, bytes, 1, stateKeys.length);
            int b = 1 + stateKeys.length;
            for (Request request : sent) {
                bytes[b++] = (byte) request.charges.size();
                bytes[b++] = (byte) (request.repeats ? 1 : 0);
                for (int i = 0; i < request.states.length; i++) {
                    int provisional = request.states[i];
                    bytes[b++] = (byte) (firstState[provisional / 256] + provisional % 256);
                    bytes[b++] = (byte) request.definitionIndexes[i];
                }
            }
            byte[][] args = new byte[3 + fields.size() + tables.size()][];
            int at = 0;
            args[at++] = bytes;
            for (byte[] field : fields) {
                args[at++] = field;
            }
            args[at++] = (">" + DEFINITION_FORMAT.repeat(definitionCount)).getBytes(StandardCharsets.US_ASCII);
            args[at++] = definitions.toByteArray();
            for (byte[] table : tables) {
                args[at++] = table;
            }
            calls.call(SCRIPT, keys, args).whenComplete((reply, error) -> replied(sent, reply, error));
        }
    }

    /** A charge's definition (and window table) as a map key, one char per byte. */
    private static String definitionKey(Request request, int i) {
        String key = new String(request.definitions[i], StandardCharsets.ISO_8859_1);
        return request.tables[i] == null ? key : key + new String(request.tables[i], StandardCharsets.ISO_8859_1);
    }

    private void replied(List<Request> requests, long[] reply, Throwable error) {
        int[] starts = new int[requests.size()];
        if (error == null) {
            error = checkLength(requests, reply, starts);
        }
        for (int r = 0; r < requests.size(); r++) {
            Request request = requests.get(r);
            if (error != null) {
                request.completeExceptionally(ScriptCalls.failureOf(error));
                continue;
            }
            int at = starts[r];
            try {
                if (reply[at] == STALE) {
                    retry(request, reply[0], (int) reply[at + 1] - 1, reply[at + 2]);
                } else {
                    request.complete(new Reply(reply[0], decision(request.charges, reply, at), request.attempt));
                }
            } catch (RuntimeException e) {
                request.completeExceptionally(e);
            }
        }
    }

    /**
     * Finds where each request's answer starts (the reply's first integer is Redis's clock, then each
     * request's answer: see {@code multi_limit.lua}); an error if the reply is not as long as they say.
     */
    private static IllegalStateException checkLength(List<Request> requests, long[] reply, int[] starts) {
        int at = 1;
        for (int r = 0; r < requests.size(); r++) {
            starts[r] = at;
            if (reply == null || at >= reply.length) {
                break;
            }
            long head = reply[at];
            if (head == STALE) {
                at += 3;
                continue;
            }
            if (head < 0 || head > 2L * MAX_LIMITS + 1) {
                return new IllegalStateException("the multi-limit script answered " + head + " for a request's head");
            }
            at += 1 + (int) (head >> 1);
            for (LimitCharge charge : requests.get(r).charges) {
                at += charge.limit().allowance() instanceof TokenBucket ? REPLY_PER_BUCKET : REPLY_PER_QUOTA;
            }
        }
        if (reply == null || at != reply.length) {
            return new IllegalStateException("the multi-limit script answered " + (reply == null ? "nothing"
                    : reply.length + " integers") + " where " + at + " or more were due");
        }
        return null;
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
     * Works out each limit's definition as the script reads it ({@value #DEFINITION_FORMAT}, big-endian:
     * kind, shadow, four parameters; a window table's boundaries apart, its definition saying how many
     * and, once in a call, which table), and whether a state repeats.
     */
    private void pack(Request request) {
        List<LimitCharge> charges = request.charges;
        boolean repeats = false;
        for (int i = 0; i < charges.size(); i++) {
            LimitCharge charge = charges.get(i);
            for (int j = 0; j < i && !repeats; j++) {
                repeats = request.stateKeys[j].equals(request.stateKeys[i]);
            }
            byte shadow = (byte) (charge.limit().shadow() ? 1 : 0);
            if (charge.limit().allowance() instanceof TokenBucket bucket) {
                BucketLimits limits = bucket.limits(charge.cost());
                request.definitions[i] = definition(KIND_BUCKET, shadow, limits.capacityMicros(),
                        limits.refillMicrosPerMilli(), limits.costMicros(), limits.millisToFill());
                continue;
            }
            CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
            if (arithmeticWhereFixed && WindowTable.isArithmetic(quota.period(), quota.zone())) {
                request.definitions[i] = definition(KIND_FIXED, shadow, quota.quota(), charge.cost(),
                        quota.period().fixedMillis(), WindowTable.fixedOffsetSeconds(quota.zone()) * 1000L);
            } else {
                long[] bounds = boundaries(quota, request.cover[i][0], request.cover[i][1]);
                request.definitions[i] = definition(KIND_TABLE, shadow, quota.quota(), charge.cost(), bounds.length, 0);
                ByteBuffer table = ByteBuffer.allocate(8 * bounds.length); // big-endian, as the script reads
                for (long bound : bounds) {
                    table.putDouble(bound);
                }
                request.tables[i] = table.array();
                continue;
            }
            request.tables[i] = null;
        }
        for (int i = 0; i < charges.size(); i++) {
            request.definitionKeys[i] = definitionKey(request, i);
        }
        request.repeats = repeats;
    }

    private static byte[] definition(byte kind, byte shadow, long p1, long p2, long p3, long p4) {
        ByteBuffer bytes = ByteBuffer.allocate(DEFINITION_BYTES); // big-endian, as the script reads
        bytes.put(kind).put(shadow).putDouble(p1).putDouble(p2).putDouble(p3).putDouble(p4);
        return bytes.array();
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
     * The decision of a request whose answer starts at {@code from} (the head: 2 x the limits without
     * room + admitted, then each limit's state, as left if admitted, as found if not: bucket
     * micro-tokens and lag, quota count, window start and end; then the positions of the limits
     * without room). The outcome is worked out here with the reference's arithmetic
     * ({@link TokenBucketMath}, the window's end), exactly as it would.
     */
    private static MultiLimitDecision decision(List<LimitCharge> charges, long[] reply, int from) {
        int n = charges.size();
        long head = reply[from];
        long now = reply[0];
        boolean[] room = new boolean[n];
        Arrays.fill(room, true);
        int at = from + 1;
        int[] starts = new int[n];
        for (int i = 0; i < n; i++) {
            starts[i] = at;
            at += charges.get(i).limit().allowance() instanceof TokenBucket ? REPLY_PER_BUCKET : REPLY_PER_QUOTA;
        }
        for (int j = 0; j < (int) (head >> 1); j++) {
            long limit = reply[at + j];
            if (limit < 1 || limit > n) {
                throw new IllegalStateException("the multi-limit script answered " + limit + " for a limit without room");
            }
            room[(int) limit - 1] = false;
        }
        List<LimitOutcome> outcomes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            LimitCharge charge = charges.get(i);
            int p = starts[i];
            if (charge.limit().allowance() instanceof TokenBucket bucket) {
                outcomes.add(LimitOutcome.ofBucket(charge, room[i], reply[p], reply[p + 1], bucket.limits(charge.cost())));
            } else {
                CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
                CalendarWindow window = new CalendarWindow(quota.period(), quota.zone(), reply[p + 1], reply[p + 2]);
                outcomes.add(LimitOutcome.ofQuota(charge, room[i], reply[p], quota, quota.quota(), window, now));
            }
        }
        return new MultiLimitDecision((head & 1) == 1, outcomes);
    }
}
