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
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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
 *     [-Dtollgate.bench.tenants=100000] [-Dtollgate.bench.rounds=5] [-Dtollgate.bench.calls=20000]
 * </pre>
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

    private RedisServer server;

    @Test
    void memoryAndCpuPerLimit() {
        int tenants = Integer.getInteger("tollgate.bench.tenants", 100_000);
        int rounds = Integer.getInteger("tollgate.bench.rounds", 5);
        int calls = Integer.getInteger("tollgate.bench.calls", 20_000);
        server = RedisServer.start();
        RedisClient client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisBucketStore today = RedisBucketStore.on(connection);
            MultiLimitScript multi = new MultiLimitScript(ScriptCalls.on(connection));
            MultiLimitScript oneKey = new MultiLimitScript(ScriptCalls.on(connection),
                    MultiLimitScript.Layout.ONE_KEY_PER_TENANT);
            System.out.println("redis " + field(server.command("INFO", "server"), "redis_version") + ", "
                    + tenants + " tenants x " + ROUTES.size() + " routes");

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

            cpu(today, multi, oneKey, rounds, calls);
        } finally {
            client.shutdown();
            server.close();
        }
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

    /**
     * Redis CPU per call: for each variant, CONFIG RESETSTAT, {@code calls} calls over 1,000 warm
     * tenants, then evalsha's usec_per_call; rounds interleave the variants; medians reported.
     */
    private void cpu(RedisBucketStore today, MultiLimitScript multi, MultiLimitScript oneKey, int rounds, int calls) {
        String[] names = {"token_bucket.lua, 1 bucket (today)", "multi_limit.lua, 1 limit", "multi_limit.lua, 3 limits",
            "multi_limit.lua, 3 limits, one key"};
        List<BiFunction<String, String, CompletionStage<?>>> variants = List.of(
                (t, r) -> today.tryAcquire(new BucketKey(t, r), TODAY),
                (t, r) -> multi.decide(List.of(LimitCharge.of(t, r, PER_ROUTE))),
                (t, r) -> multi.decide(threeLimits(t, r)),
                (t, r) -> oneKey.decide(threeLimits(t, r)));
        double[][] usec = new double[variants.size()][rounds];
        server.command("FLUSHALL");
        for (int round = -1; round < rounds; round++) { // round -1 warms keys, scripts and the JIT
            for (int v = 0; v < variants.size(); v++) {
                server.command("CONFIG", "RESETSTAT");
                Semaphore inFlight = new Semaphore(64);
                for (int i = 0; i < calls; i++) {
                    inFlight.acquireUninterruptibly();
                    variants.get(v).apply("cpu-tenant-" + (i % 1000), ROUTES.get(i % ROUTES.size()))
                            .whenComplete((ok, error) -> inFlight.release());
                }
                inFlight.acquireUninterruptibly(64);
                String stats = server.command("INFO", "commandstats");
                Matcher m = Pattern.compile("cmdstat_evalsha:calls=(\\d+),usec=(\\d+),usec_per_call=([0-9.]+)").matcher(stats);
                assertThat(m.find()).as(stats).isTrue();
                if (round >= 0) {
                    usec[v][round] = Double.parseDouble(m.group(3));
                }
            }
        }
        System.out.println("\nRedis CPU per call, evalsha usec_per_call (INFO commandstats), " + calls
                + " calls x " + rounds + " rounds over 1,000 warm tenants:");
        double base = median(usec[0]);
        for (int v = 0; v < variants.size(); v++) {
            System.out.printf(Locale.ROOT, "  %-40s median %6.2f us  (%.2f x today)  rounds %s%n", names[v],
                    median(usec[v]), median(usec[v]) / base, Arrays.toString(usec[v]));
        }
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
