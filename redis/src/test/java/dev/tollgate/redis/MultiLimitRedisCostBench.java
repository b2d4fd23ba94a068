package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.testkit.RedisBinary;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Redis's cost of {@code multi_limit.lua} beside today's {@code token_bucket.lua}, in one run on one
 * Redis: memory per limit state ({@code used_memory} before and after filling an empty Redis, divided
 * by the states created; {@code MEMORY USAGE} and {@code OBJECT ENCODING} of sample keys) and Redis CPU
 * per call ({@code INFO commandstats} {@code usec_per_call} of {@code evalsha}, median of rounds, the
 * variants interleaved). A measurement, not a test: it prints figures and is not run by default
 * (surefire runs {@code *Test} classes only). Run:
 * <pre>
 * ./mvnw -B -ntp -o -pl redis -Dtest=MultiLimitRedisCostBench -Dsurefire.failIfNoSpecifiedTests=false test
 *     [-Dtollgate.bench.tenants=100000] [-Dtollgate.bench.rounds=5] [-Dtollgate.bench.calls=24000]
 *     [-Dtollgate.bench.batch=8] [-Dtollgate.bench.cpuOnly=true] [-Dtollgate.bench.instructions=true]
 *     [-Dtollgate.bench.only='3 limits batch 1 ']
 * </pre>
 * ({@code only}: a regular expression; the variants whose "name batch N spread|hot" it finds, beside
 * today's script, which every figure is read against.)
 *
 * <p>With {@code tollgate.bench.instructions=true} it counts instead of timing: its Redis runs under
 * {@code valgrind --tool=callgrind} (which must be installed), and for each variant, after a warm-up
 * run, the instructions the whole {@code redis-server} process executed (the script, the commands it
 * calls, reading the calls and writing the replies) while it decided {@code tollgate.bench.calls}
 * requests (default 2,400 in this mode), zeroed before and dumped after with {@code callgrind_control}.
 * The counts do not depend on what else the machine runs, so a few per cent can be told apart on a
 * shared host where {@code usec_per_call} varies by more than that from round to round. The calls are
 * sent one at a time ({@code tollgate.bench.inFlight}, default 1 in this mode, 64 otherwise), as a
 * lightly loaded gateway sends them; the server's own timers (10 a second) add a little, the same for
 * every variant.
 */
@Tag("bench")
class MultiLimitRedisCostBench {

    private static final List<String> ROUTES = List.of("orders", "search", "users");
    private static final int IN_FLIGHT = 512;
    /** Expiries of every state are far beyond the fill time (200 s and more), so nothing expires while counted. */
    private static final BucketLimits TODAY = RateLimitRule.of(100, 1).limits();
    private static final Limit PER_ROUTE = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(100, 1));
    private static final Limit TENANT_RATE = new Limit("total", LimitScope.tenant(), new TokenBucket(1000, 5));
    private static final Limit DAY = new Limit("day", LimitScope.tenant(), new CalendarQuota(10_000, QuotaPeriod.DAY));

    /** The CPU measurement's limits: as above, with room for every request of a run (a few hundred a state). */
    private static final BucketLimits CPU_TODAY = RateLimitRule.of(10_000, 10).limits();
    private static final Limit CPU_ROUTE = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(10_000, 10));
    private static final Limit CPU_TENANT = new Limit("total", LimitScope.tenant(), new TokenBucket(10_000, 50));
    private static final Limit CPU_DAY = new Limit("day", LimitScope.tenant(),
            new CalendarQuota(10_000_000, QuotaPeriod.DAY));

    /** main's multi_limit.lua before this branch's changes, for the comparison in the same run. */
    private static final LuaScript BEFORE = LuaScript.fromResource("dev/tollgate/redis/multi_limit_v1.lua");

    private RedisServer server;

    @Test
    void memoryAndCpuPerLimit() {
        int tenants = Integer.getInteger("tollgate.bench.tenants", 100_000);
        int rounds = Integer.getInteger("tollgate.bench.rounds", 5);
        int calls = Integer.getInteger("tollgate.bench.calls", 24_000);
        int batch = Integer.getInteger("tollgate.bench.batch", 8);
        boolean instructions = Boolean.getBoolean("tollgate.bench.instructions");
        boolean memory = !Boolean.getBoolean("tollgate.bench.cpuOnly") && !instructions;
        Callgrind callgrind = instructions ? Callgrind.create() : null;
        server = callgrind != null ? RedisServer.start(callgrind.wrapper(), List.of()) : RedisServer.start();
        // Redis ahead of the other work of a shared machine (as on a host of its own): fewer rounds
        // stretched by waiting for a core. Without the right to, it says so and changes nothing.
        server.prioritise();
        RedisClient client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisBucketStore today = RedisBucketStore.on(connection);
            MultiLimitScript multi = new MultiLimitScript(ScriptCalls.on(connection));
            MultiLimitScript oneKey = new MultiLimitScript(ScriptCalls.on(connection),
                    MultiLimitScript.Layout.ONE_KEY_PER_TENANT);
            System.out.println("redis " + field(server.command("INFO", "server"), "redis_version") + ", "
                    + tenants + " tenants x " + ROUTES.size() + " routes");

            if (memory) {
                memory(today, multi, oneKey, tenants);
            }
            if (callgrind != null) {
                instructions(connection, multi, oneKey, callgrind, Integer.getInteger("tollgate.bench.calls", 2_400),
                        batch, Integer.getInteger("tollgate.bench.inFlight", 1));
            } else {
                cpu(connection, multi, oneKey, rounds, calls, batch);
            }
        } finally {
            client.shutdown();
            server.close();
        }
    }

    /** Memory per state of each variant (one request per tenant and route of an empty Redis). */
    private void memory(RedisBucketStore today, MultiLimitScript multi, MultiLimitScript oneKey, int tenants) {
        List<String> lines = new ArrayList<>();
        lines.add(memory("token_bucket.lua, 1 bucket per request (today)", tenants, ROUTES.size(), 1,
                (t, r) -> today.tryAcquire(new BucketKey(t, r), TODAY), (t, r) -> new BucketKey(t, r).redisKey()));
        lines.add(memory("multi_limit.lua, 1 limit (each-route rate)", tenants, ROUTES.size(), 1,
                (t, r) -> multi.decide(List.of(LimitCharge.of(t, r, PER_ROUTE))),
                (t, r) -> MultiLimitScript.redisKey(PER_ROUTE.keyFor(t, r))));
        lines.add(memory("multi_limit.lua, 3 limits, 1 route per tenant (3 states in 2 keys)", tenants, 1, 3,
                (t, r) -> multi.decide(threeLimits(t, r)),
                (t, r) -> MultiLimitScript.redisKey(DAY.keyFor(t, r))));
        lines.add(memory("multi_limit.lua, 3 limits, 3 routes per tenant (5 states in 4 keys)", tenants,
                ROUTES.size(), 5.0 / 3, (t, r) -> multi.decide(threeLimits(t, r)),
                (t, r) -> MultiLimitScript.redisKey(DAY.keyFor(t, r))));
        lines.add(memory("multi_limit.lua, 3 limits, 1 route per tenant, ONE KEY per tenant", tenants, 1, 3,
                (t, r) -> oneKey.decide(threeLimits(t, r)),
                (t, r) -> MultiLimitScript.redisKey(DAY.keyFor(t, r), MultiLimitScript.Layout.ONE_KEY_PER_TENANT)));
        lines.add(memory("multi_limit.lua, 3 limits, 3 routes per tenant, ONE KEY per tenant", tenants,
                ROUTES.size(), 5.0 / 3, (t, r) -> oneKey.decide(threeLimits(t, r)),
                (t, r) -> MultiLimitScript.redisKey(DAY.keyFor(t, r), MultiLimitScript.Layout.ONE_KEY_PER_TENANT)));
        System.out.println("\nRedis memory per limit state (used_memory after - before) / states:");
        lines.forEach(System.out::println);
    }

    private static List<LimitCharge> threeLimits(String tenant, String route) {
        return List.of(LimitCharge.of(tenant, route, PER_ROUTE), LimitCharge.of(tenant, route, TENANT_RATE),
                LimitCharge.of(tenant, route, DAY));
    }

    /**
     * Fills an empty Redis with one admitted request per tenant and route, and reports used_memory per
     * state ({@code statesPerRequest} per call, on average).
     */
    private String memory(String name, int tenants, int routes, double statesPerRequest,
                          BiFunction<String, String, CompletionStage<?>> request,
                          BiFunction<String, String, String> sampleKey) {
        server.command("FLUSHALL");
        join(request.apply("warm-up", ROUTES.get(0))); // the script is cached before the first reading
        server.command("FLUSHALL");
        long before = usedMemory();
        long start = System.nanoTime();
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < tenants; t++) {
            for (int r = 0; r < routes; r++) {
                inFlight.acquireUninterruptibly();
                request.apply("tenant-" + t, ROUTES.get(r)).whenComplete((ok, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    }
                    inFlight.release();
                });
            }
        }
        inFlight.acquireUninterruptibly(IN_FLIGHT);
        assertThat(failure.get()).isNull();
        double seconds = (System.nanoTime() - start) / 1e9;
        long after = usedMemory();
        long states = Math.round((long) tenants * routes * statesPerRequest);
        String keys = server.command("DBSIZE").substring(1);
        String sampleTenant = "tenant-" + tenants / 2;
        String routeKey = MultiLimitScript.redisKey(PER_ROUTE.keyFor(sampleTenant, ROUTES.get(0)));
        String sample = sampleKey.apply(sampleTenant, ROUTES.get(0));
        String sampleText = sample + ": MEMORY USAGE " + server.command("MEMORY", "USAGE", sample).substring(1)
                + " B, " + server.command("OBJECT", "ENCODING", sample);
        if (!sample.equals(routeKey) && !name.contains("today") && !name.contains("ONE KEY")) {
            sampleText += "; " + routeKey + ": MEMORY USAGE " + server.command("MEMORY", "USAGE", routeKey).substring(1)
                    + " B, " + server.command("OBJECT", "ENCODING", routeKey);
        }
        return String.format(Locale.ROOT, "  %-72s %,9d states %,9d keys %6.1f B/state  (%.1f s; %s)", name,
                states, Long.parseLong(keys), (double) (after - before) / states, seconds, sampleText);
    }

    /** One script call of a variant: the requests {@code first .. first + n - 1}, of the tenants {@code tenants} names. */
    private interface Variant {
        CompletionStage<?> call(Tenants tenants, int first, int n);
    }

    private record Named(String name, int batch, boolean hot, Variant variant) {
    }

    /**
     * Which tenant and route request i is for: spread (each request of a call another tenant, as a
     * gateway's batch under many tenants) or hot (the requests of one call all of one tenant and
     * route, as under one busy tenant). Each variant has tenants of its own, so no variant changes
     * another's states.
     */
    private record Tenants(String prefix, int batch, boolean hot) {

        int index(int i) {
            return (hot ? i / batch : i) % 1000;
        }

        String tenant(int i) {
            return prefix + index(i);
        }

        String route(int i) {
            return ROUTES.get((hot ? index(i) : i) % ROUTES.size());
        }
    }

    /**
     * Redis CPU per decision: for each variant, CONFIG RESETSTAT, {@code calls} requests (over 1,000
     * warm tenants of its own) in calls of {@code batch} requests each, then evalsha's usec_per_call
     * divided by the requests per call; rounds interleave the variants; the median and the smallest
     * of the rounds reported (the smallest: the least disturbed by other work on a shared machine).
     * Today's script is batched the same way ({@code RedisBucketStore} batches per event-loop turn in
     * the gateway), so that the comparison at batch N is fair. The limits are roomy enough that every
     * request is admitted (a rejection writes nothing and costs less).
     */
    private void cpu(StatefulRedisConnection<String, String> connection, MultiLimitScript multi,
                     MultiLimitScript oneKey, int rounds, int calls, int batchSize) {
        List<Named> variants = variants(ScriptCalls.on(connection), multi, oneKey, batchSize);
        double[][] usec = new double[variants.size()][rounds];
        server.command("FLUSHALL");
        for (int round = -1; round < rounds; round++) { // round -1 warms keys, scripts and the JIT
            for (int v = 0; v < variants.size(); v++) {
                Named named = variants.get(v);
                server.command("CONFIG", "RESETSTAT");
                send(named, tenantsOf(v, named), calls, 64);
                String stats = server.command("INFO", "commandstats");
                Matcher m = Pattern.compile("cmdstat_evalsha:calls=(\\d+),usec=(\\d+),usec_per_call=([0-9.]+)").matcher(stats);
                assertThat(m.find()).as(stats).isTrue();
                assertThat(Long.parseLong(m.group(1))).as("calls of %s", named.name()).isEqualTo(calls / named.batch());
                if (round >= 0) {
                    usec[v][round] = Double.parseDouble(m.group(3)) / named.batch();
                }
            }
        }
        System.out.println("\nRedis CPU per decision, evalsha usec_per_call (INFO commandstats) / requests per call, "
                + calls + " requests x " + rounds + " rounds over 1,000 warm tenants (x: / today's at the same batch):");
        for (int v = 0; v < variants.size(); v++) {
            Named named = variants.get(v);
            int todayAt = todayAt(variants, named);
            System.out.printf(Locale.ROOT, "  %-50s batch %3d %-6s median %6.2f us (%.2f x)  min %6.2f us (%.2f x)  rounds %s%n",
                    named.name(), named.batch(), named.hot() ? "hot" : "spread", median(usec[v]),
                    median(usec[v]) / median(usec[todayAt]), min(usec[v]), min(usec[v]) / min(usec[todayAt]),
                    Arrays.toString(Arrays.stream(usec[v]).map(x -> Math.round(x * 100) / 100.0).toArray()));
        }
    }

    /** The variants measured, in the order they run: main's first script, then each at batch 1 and at {@code batchSize}. */
    private static List<Named> variants(ScriptCalls raw, MultiLimitScript multi, MultiLimitScript oneKey, int batchSize) {
        List<Named> variants = new ArrayList<>();
        variants.add(new Named("multi_limit.lua before (main), 3 limits", 1, false,
                (t, first, n) -> before(raw, t, first, MultiLimitScript.Layout.ROUTE_AND_TENANT_KEYS)));
        variants.add(new Named("multi_limit.lua before (main), 3 limits, one key", 1, false,
                (t, first, n) -> before(raw, t, first, MultiLimitScript.Layout.ONE_KEY_PER_TENANT)));
        for (int batch : new int[] {1, batchSize}) {
            for (boolean hot : batch == 1 ? new boolean[] {false} : new boolean[] {false, true}) {
                variants.add(new Named("token_bucket.lua, 1 bucket (today)", batch, hot,
                        (t, first, n) -> today(raw, t, first, n)));
                variants.add(new Named("multi_limit.lua, 1 limit", batch, hot,
                        (t, first, n) -> together(multi, t, first, n, (tenant, route) -> List.of(
                                LimitCharge.of(tenant, route, CPU_ROUTE)))));
                variants.add(new Named("multi_limit.lua, 3 limits", batch, hot,
                        (t, first, n) -> together(multi, t, first, n, MultiLimitRedisCostBench::cpuLimits)));
                variants.add(new Named("multi_limit.lua, 3 limits, one key", batch, hot,
                        (t, first, n) -> together(oneKey, t, first, n, MultiLimitRedisCostBench::cpuLimits)));
            }
        }
        String only = System.getProperty("tollgate.bench.only");
        if (only != null) { // today's script stays: every figure is read against it
            Pattern wanted = Pattern.compile(only);
            variants.removeIf(v -> !v.name().contains("today")
                    && !wanted.matcher(v.name() + " batch " + v.batch() + (v.hot() ? " hot" : " spread")).find());
        }
        return variants;
    }

    /** Each variant's own tenants: no variant changes another's states. */
    private static Tenants tenantsOf(int v, Named named) {
        return new Tenants("cpu-" + v + "-tenant-", named.batch(), named.hot());
    }

    /** Sends {@code calls} requests of a variant, {@code inFlight} script calls at most at a time, and waits for all. */
    private static void send(Named named, Tenants tenants, int calls, int inFlight) {
        Semaphore permits = new Semaphore(inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i + named.batch() <= calls; i += named.batch()) {
            permits.acquireUninterruptibly();
            named.variant().call(tenants, i, named.batch()).whenComplete((ok, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                }
                permits.release();
            });
        }
        permits.acquireUninterruptibly(inFlight);
        assertThat(failure.get()).as("a call of %s", named.name()).isNull();
    }

    /**
     * Instructions of the whole Redis process per decision (callgrind): per variant a warm-up run (its
     * keys, the script cached), then the counters zeroed, {@code calls} requests, a dump. A second run
     * of each variant follows the first of all of them, so that a figure that moves between the two
     * shows what is not the variant's own (the server's timers).
     */
    private void instructions(StatefulRedisConnection<String, String> connection, MultiLimitScript multi,
                              MultiLimitScript oneKey, Callgrind callgrind, int calls, int batchSize, int inFlight) {
        List<Named> variants = variants(ScriptCalls.on(connection), multi, oneKey, batchSize);
        double[][] perDecision = new double[variants.size()][2];
        server.command("FLUSHALL");
        for (int v = 0; v < variants.size(); v++) {
            send(variants.get(v), tenantsOf(v, variants.get(v)), calls, inFlight);
        }
        for (int run = 0; run < 2; run++) {
            for (int v = 0; v < variants.size(); v++) {
                Named named = variants.get(v);
                callgrind.zero(server.pid());
                send(named, tenantsOf(v, named), calls, inFlight);
                perDecision[v][run] = (double) callgrind.dump(server.pid()) / calls;
            }
        }
        System.out.println("\nRedis instructions per decision (callgrind, the whole redis-server process), " + calls
                + " requests a run, " + inFlight + " call(s) in flight, two runs (x: / today's at the same batch and spread):");
        for (int v = 0; v < variants.size(); v++) {
            Named named = variants.get(v);
            int today = todayAt(variants, named);
            System.out.printf(Locale.ROOT, "  %-50s batch %3d %-6s %,9.0f %,9.0f  (%.3f x, %.3f x)%n", named.name(),
                    named.batch(), named.hot() ? "hot" : "spread", perDecision[v][0], perDecision[v][1],
                    perDecision[v][0] / perDecision[today][0], perDecision[v][1] / perDecision[today][1]);
        }
    }

    /** The index of today's script at the batch and spread of {@code named} (batch 1: today's at batch 1). */
    private static int todayAt(List<Named> variants, Named named) {
        for (int t = 0; t < variants.size(); t++) {
            Named other = variants.get(t);
            if (other.name().contains("today") && other.batch() == named.batch()
                    && (other.hot() == named.hot() || named.batch() == 1)) {
                return t;
            }
        }
        throw new IllegalStateException("no baseline for " + named.name());
    }

    /**
     * A {@code redis-server} under callgrind: a wrapper script that {@link RedisServer} starts as its
     * binary (it execs valgrind, so the process it starts is the one measured), and the counters read
     * with {@code callgrind_control}.
     */
    private record Callgrind(Path directory, Path wrapper) {

        static Callgrind create() {
            boolean installed = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                    .anyMatch(dir -> Files.isExecutable(Path.of(dir, "valgrind")));
            if (!installed) {
                throw new IllegalStateException("tollgate.bench.instructions needs valgrind on the PATH (apt-get install valgrind)");
            }
            try {
                Path directory = Files.createTempDirectory("tollgate-callgrind");
                Path wrapper = directory.resolve("redis-server-under-callgrind");
                Files.writeString(wrapper, "#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file="
                        + directory.resolve("callgrind.out") + " " + RedisBinary.locate() + " \"$@\"\n");
                wrapper.toFile().setExecutable(true);
                return new Callgrind(directory, wrapper);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void zero(long pid) {
            run("callgrind_control", "-z", Long.toString(pid));
        }

        /**
         * Dumps the counters since the last zero and returns the instructions they hold (callgrind's
         * {@code totals}). Callgrind numbers its dumps: {@code callgrind.out.1}, {@code .2}, ...
         */
        long dump(long pid) {
            run("callgrind_control", "-d", Long.toString(pid));
            try (var files = Files.list(directory)) {
                Path newest = files.filter(f -> f.getFileName().toString().matches("callgrind\\.out\\.\\d+"))
                        .max(Comparator.comparingInt(f -> Integer.parseInt(
                                f.getFileName().toString().substring("callgrind.out.".length()))))
                        .orElseThrow(() -> new IllegalStateException("no dump in " + directory));
                for (String line : Files.readAllLines(newest)) {
                    if (line.startsWith("totals:")) {
                        return Long.parseLong(line.substring("totals:".length()).trim().split("\\s+")[0]);
                    }
                }
                throw new IllegalStateException("no totals in " + newest);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static void run(String... command) {
            try {
                Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
                String output = new String(process.getInputStream().readAllBytes());
                if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** The three limits of the CPU measurement: roomy enough to admit every request of a run. */
    private static List<LimitCharge> cpuLimits(String tenant, String route) {
        return List.of(LimitCharge.of(tenant, route, CPU_ROUTE), LimitCharge.of(tenant, route, CPU_TENANT),
                LimitCharge.of(tenant, route, CPU_DAY));
    }

    private static CompletionStage<?> together(MultiLimitScript script, Tenants tenants, int first, int n,
                                               BiFunction<String, String, List<LimitCharge>> charges) {
        List<List<LimitCharge>> requests = new ArrayList<>(n);
        for (int i = first; i < first + n; i++) {
            requests.add(charges.apply(tenants.tenant(i), tenants.route(i)));
        }
        return CompletableFuture.allOf(script.decideTogether(requests).toArray(CompletableFuture[]::new));
    }

    /** Today's token_bucket.lua deciding n buckets in one call, as RedisBucketStore's batches do. */
    private static CompletionStage<?> today(ScriptCalls calls, Tenants tenants, int first, int n) {
        String[] keys = new String[n];
        long[] args = new long[3 * n];
        for (int i = 0; i < n; i++) {
            keys[i] = new BucketKey(tenants.tenant(first + i), tenants.route(first + i)).redisKey();
            args[3 * i] = CPU_TODAY.capacityMicros();
            args[3 * i + 1] = CPU_TODAY.refillMicrosPerMilli();
            args[3 * i + 2] = CPU_TODAY.costMicros();
        }
        return calls.call(RedisBucketStore.SCRIPT, keys, args);
    }

    /**
     * main's multi_limit.lua (kept as a test resource for this comparison): one request per call, its
     * 25 arguments as text.
     */
    private static CompletionStage<?> before(ScriptCalls calls, Tenants tenants, int i, MultiLimitScript.Layout layout) {
        List<LimitCharge> charges = cpuLimits(tenants.tenant(i), tenants.route(i));
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        args.add(Integer.toString(charges.size()));
        for (LimitCharge charge : charges) {
            String key = MultiLimitScript.redisKey(charge.key(), layout);
            if (!keys.contains(key)) {
                keys.add(key);
            }
            args.add(Integer.toString(keys.indexOf(key) + 1));
            args.add(MultiLimitScript.field(charge.key(), layout));
            if (charge.limit().allowance() instanceof TokenBucket bucket) {
                BucketLimits limits = bucket.limits(charge.cost());
                args.addAll(List.of("b", "0", Long.toString(limits.capacityMicros()),
                        Long.toString(limits.refillMicrosPerMilli()), Long.toString(limits.costMicros())));
            } else {
                CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
                args.addAll(List.of("f", "0", Long.toString(quota.quota()), Long.toString(charge.cost()),
                        Long.toString(quota.period().fixedMillis()), "0"));
            }
        }
        return calls.call(BEFORE, keys.toArray(String[]::new), args.toArray(String[]::new));
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElseThrow();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private long usedMemory() {
        return Long.parseLong(field(server.command("INFO", "memory"), "used_memory"));
    }

    private static String field(String info, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + ":(\\S+)").matcher(info.replace(" ", "\n"));
        if (!m.find()) {
            throw new IllegalStateException("no " + name + " in INFO");
        }
        return m.group(1);
    }

    private static void join(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Redis call failed", e);
        }
    }
}
