package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.ManualClock;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.CalendarWindow;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitKey;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.LimitState;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.core.limits.MultiLimitLeases;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.ReferenceLimitEvaluator.QuotaWindows;
import dev.tollgate.core.limits.TokenBucket;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hot-key leases on the multi-limit path ({@link MultiLimitLeases} over {@link RedisMultiLimitLeaseSource})
 * on a real Redis: a lease holds whole requests charged to every limit at once, so under 1,000 parallel
 * requests over several routes and instances no limit admits more than it allows and every limit's state
 * accounts exactly for what was admitted plus what is held; a lease ends with its quota window and gives
 * back nothing to the next.
 */
class MultiLimitLeaseTest {

    private static final AtomicInteger TENANTS = new AtomicInteger();

    private static LiveRedis live;
    private static RedisCommands<byte[], byte[]> bytes;

    @BeforeAll
    static void startRedis() {
        live = LiveRedis.start();
        bytes = live.client.connect(ByteArrayCodec.INSTANCE).sync();
    }

    @AfterAll
    static void stopRedis() {
        if (live != null) {
            live.close();
        }
    }

    private static String freshTenant(String name) {
        return name + "-" + TENANTS.incrementAndGet() + "-" + System.nanoTime();
    }

    /**
     * Three limits on every request (a bucket of 60 per route, a tenant-wide bucket of 137, a tenant day
     * quota of 100), three routes, three instances (each its own connection and leases, every key hot
     * from the first request, batches of up to 10), 1,000 requests from 32 threads: the quota admits at
     * most 100 in all, each route at most 60; and Redis's states account exactly for the admitted
     * requests plus the ones still held on lease (none lost, none charged to some limits only); after
     * the instances close (giving back), for the admitted requests alone.
     */
    @Test
    void aThousandParallelRequestsOverLeasesNeverAdmitMoreThanAnyLimit() throws Exception {
        String tenant = freshTenant("lease-parallel");
        Limit perRoute = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(60, 0.001));
        Limit total = new Limit("total", LimitScope.tenant(), new TokenBucket(137, 0.001));
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(100, QuotaPeriod.DAY));
        List<String> routes = List.of("a", "b", "c");
        LeasePolicy policy = new LeasePolicy(0, 100, 10, 0.25, 60_000);
        int instances = 3;
        int requests = 1000;
        int threads = 32;
        List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
        List<MultiLimitLeases> leases = new ArrayList<>();
        List<MultiLimitScript> scripts = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            StatefulRedisConnection<String, String> c = live.client.connect();
            connections.add(c);
            ScriptCalls calls = ScriptCalls.on(c);
            scripts.add(new MultiLimitScript(calls));
            leases.add(new MultiLimitLeases(new RedisMultiLimitLeaseSource(scripts.get(i), calls), policy,
                    MonotonicClock.system()));
        }
        AtomicInteger perRequestCalls = new AtomicInteger();
        AtomicInteger[] admittedOn = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        try {
            AllAtOnce.send(threads, requests, Duration.ofSeconds(120), i -> {
                int r = i % routes.size();
                String route = routes.get(r);
                List<LimitCharge> charges = List.of(LimitCharge.of(tenant, route, perRoute),
                        LimitCharge.of(tenant, route, total), LimitCharge.of(tenant, route, day));
                Optional<MultiLimitLeases.Leased> leased = leases.get(i % instances).decide(charges)
                        .toCompletableFuture().get(30, TimeUnit.SECONDS);
                boolean admitted;
                if (leased.isEmpty()) {
                    // The batch ran out while it waited: one call of its own, as MultiLimitLimiter makes.
                    perRequestCalls.incrementAndGet();
                    admitted = scripts.get(i % instances).decide(charges).get(30, TimeUnit.SECONDS)
                            .decision().admitted();
                } else {
                    admitted = leased.get().decision().admitted();
                }
                if (admitted) {
                    admittedOn[r].incrementAndGet();
                }
            });
            int admitted = admittedOn[0].get() + admittedOn[1].get() + admittedOn[2].get();
            long held = leases.stream().mapToLong(MultiLimitLeases::heldRequests).sum();
            long calls = leases.stream().mapToLong(MultiLimitLeases::leaseCalls).sum();
            long local = leases.stream().mapToLong(MultiLimitLeases::localDecisions).sum();
            System.out.printf("[multi-limit leases] %d requests: %d admitted (%d %d %d per route), %d held at the end, "
                            + "%d lease calls, %d decided in memory, %d left to a call of their own%n", requests, admitted,
                    admittedOn[0].get(), admittedOn[1].get(), admittedOn[2].get(), held, calls, local, perRequestCalls.get());
            assertThat(admitted).isLessThanOrEqualTo(100);
            for (AtomicInteger onRoute : admittedOn) {
                assertThat(onRoute.get()).isLessThanOrEqualTo(60);
            }
            // The quota ran out: every unit was taken by a request admitted or held, none lost.
            assertThat(admitted + held).isEqualTo(100);
            assertThat(quotaUsed(day.keyFor(tenant, "a"))).isEqualTo(100);
            assertThat(wholeTokens(total.keyFor(tenant, "a"))).isEqualTo(137 - 100);
            assertThat(calls).isLessThan(requests / 4);
            assertThat(local).isGreaterThan(requests / 2);
        } finally {
            leases.forEach(MultiLimitLeases::close);
            connections.forEach(StatefulRedisConnection::close);
        }
        int admitted = admittedOn[0].get() + admittedOn[1].get() + admittedOn[2].get();
        // Given back: each limit holds exactly what the admitted requests took (refill at 0.001/s adds
        // well under one token during the test: whole tokens are exact).
        assertThat(quotaUsed(day.keyFor(tenant, "a"))).isEqualTo(admitted);
        assertThat(wholeTokens(total.keyFor(tenant, "a"))).isEqualTo(137 - admitted);
        for (int r = 0; r < routes.size(); r++) {
            assertThat(wholeTokens(perRoute.keyFor(tenant, routes.get(r)))).isEqualTo(60 - admittedOn[r].get());
        }
    }

    /**
     * All or nothing: a lease stops at the first request a limit rejects, and takes nothing more from
     * the others. A route bucket of 30 beside a tenant day quota of 50 of which 43 are used: a lease
     * asked for 20 gets 7 requests, the bucket gives exactly 7 tokens, and the next request is rejected
     * here, without a call (until the quota's window ends).
     */
    @Test
    void aRejectingLimitEndsTheLeaseAndChargesNoOtherLimit() {
        String tenant = freshTenant("lease-all-or-nothing");
        Limit perRoute = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(30, 0.001));
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(50, QuotaPeriod.DAY));
        ManualClock clock = new ManualClock();
        // Batches sized for a minute at the observed rate: the first fetch asks for the most, 20.
        LeasePolicy policy = new LeasePolicy(0, 60_000, 20, 1.0, 600_000);
        ScriptCalls calls = ScriptCalls.on(live.connection);
        MultiLimitScript script = new MultiLimitScript(calls);
        MultiLimitLeases leases = new MultiLimitLeases(new RedisMultiLimitLeaseSource(script, calls), policy, clock);
        assertThat(script.decideCopies(List.of(LimitCharge.of(tenant, "other", day)), 43).join())
                .allMatch(reply -> reply.decision().admitted());
        List<LimitCharge> charges = List.of(LimitCharge.of(tenant, "r", perRoute), LimitCharge.of(tenant, "r", day));
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            MultiLimitLeases.Leased leased = leases.decide(charges).toCompletableFuture().join().orElseThrow();
            admitted += leased.decision().admitted() ? 1 : 0;
            if (i == 0) {
                assertThat(leased.redisSaid()).hasSize(8); // 7 admitted, then the rejection that ended the grant
                assertThat(leased.redisSaid().get(7).admitted()).isFalse();
            }
            if (i == 7) {
                assertThat(leased.decision().admitted()).isFalse();
                assertThat(leased.decision().rejectedBy()).extracting(o -> o.limitDefinition().name()).containsExactly("day");
                assertThat(leased.fromLease()).isTrue();
            }
        }
        assertThat(admitted).isEqualTo(7);
        assertThat(leases.leaseCalls()).isEqualTo(1);
        assertThat(quotaUsed(day.keyFor(tenant, "r"))).isEqualTo(50);
        assertThat(wholeTokens(perRoute.keyFor(tenant, "r"))).isEqualTo(30 - 7);
        leases.close();
    }

    /**
     * A lease ends with the quota window it was counted in, and gives nothing back to the next. Quota
     * windows of 500 ms (sent as tables, Redis's clock cannot be set; the test waits for Redis's clock to
     * cross a boundary) and a manual clock for the instance: a lease taken in window W is spent until
     * just before W's end as measured from the send, and not at W's end (the next request takes a new
     * lease, counted in W + 1 once Redis is there); an instance that closes after Redis moved on to the
     * next window gives its quota units back to none, and its bucket tokens back exactly.
     */
    @Test
    void aLeaseNeverCrossesItsQuotaWindow() {
        String tenant = freshTenant("lease-window");
        Limit perRoute = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(100, 0.001));
        Limit minute = new Limit("minute", LimitScope.tenant(), new CalendarQuota(1000, QuotaPeriod.MINUTE));
        QuotaWindows windows = (quota, t) -> new CalendarWindow(quota.period(), quota.zone(), Math.floorDiv(t, 500) * 500,
                Math.floorDiv(t, 500) * 500 + 500);
        ScriptCalls calls = ScriptCalls.on(live.connection);
        MultiLimitScript script = MultiLimitScript.withWindowTables(calls, windows, WallClock.system());
        LeasePolicy policy = new LeasePolicy(0, 60_000, 20, 1.0, 600_000);
        ManualClock clockA = new ManualClock();
        MultiLimitLeases a = new MultiLimitLeases(new RedisMultiLimitLeaseSource(script, calls), policy, clockA);
        MultiLimitLeases b = new MultiLimitLeases(new RedisMultiLimitLeaseSource(script, calls), policy, new ManualClock());
        List<LimitCharge> charges = List.of(LimitCharge.of(tenant, "r", perRoute), LimitCharge.of(tenant, "r", minute));

        // Start early in a window, so that the steps below fit in it.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> redisNow() % 500 < 100);
        MultiLimitLeases.Leased first = a.decide(charges).toCompletableFuture().join().orElseThrow();
        CalendarWindow w = quotaWindow(first.decision());
        long leaseNow = first.redisSaid().get(0).outcomes().get(1).window().endMillis()
                - first.redisSaid().get(0).outcomes().get(1).resetAfterMillis(); // Redis's now at the grant
        assertThat(first.decision().admitted()).isTrue();
        assertThat(first.fromLease()).isFalse();
        assertThat(first.redisSaid()).hasSize(20);
        long untilEnd = w.endMillis() - leaseNow;

        clockA.advanceMillis(untilEnd - 1);
        MultiLimitLeases.Leased last = a.decide(charges).toCompletableFuture().join().orElseThrow();
        assertThat(last.fromLease()).isTrue();
        assertThat(quotaWindow(last.decision())).isEqualTo(w);
        assertThat(a.leaseCalls()).isEqualTo(1);

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> redisNow() >= w.endMillis());
        clockA.advanceMillis(1);
        MultiLimitLeases.Leased next = a.decide(charges).toCompletableFuture().join().orElseThrow();
        assertThat(next.fromLease()).as("the lease ended with its window").isFalse();
        assertThat(a.leaseCalls()).isEqualTo(2);
        assertThat(a.giveBackCalls()).isEqualTo(1);
        CalendarWindow w1 = quotaWindow(next.decision());
        assertThat(w1.startMillis()).isGreaterThanOrEqualTo(w.endMillis());
        assertThat(quotaState(minute.keyFor(tenant, "r"))).isEqualTo(new LimitState.Quota(w1.startMillis(), 20));
        // Bucket: 20 + 20 taken, 18 given back.
        assertThat(wholeTokens(perRoute.keyFor(tenant, "r"))).isEqualTo(100 - 40 + 18);

        // Redis moves on to a later window, where instance b takes a lease; a's give-back of W + 1's
        // units then changes no count, while its tokens go back to the bucket.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> redisNow() >= w1.endMillis());
        MultiLimitLeases.Leased other = b.decide(charges).toCompletableFuture().join().orElseThrow();
        CalendarWindow w2 = quotaWindow(other.decision());
        assertThat(w2.startMillis()).isGreaterThanOrEqualTo(w1.endMillis());
        a.close(); // 19 unspent requests of W + 1
        assertThat(quotaState(minute.keyFor(tenant, "r"))).isEqualTo(new LimitState.Quota(w2.startMillis(), 20));
        assertThat(wholeTokens(perRoute.keyFor(tenant, "r"))).isEqualTo(100 - 40 + 18 - 20 + 19);
        b.close();
        assertThat(quotaState(minute.keyFor(tenant, "r"))).isEqualTo(new LimitState.Quota(w2.startMillis(), 1));
        assertThat(wholeTokens(perRoute.keyFor(tenant, "r"))).isEqualTo(100 - 40 + 18 - 20 + 19 + 19);
    }

    /**
     * What leasing saves Redis: 1,000 requests with three limits (each-route rate, tenant rate, day
     * quota, all large enough to admit everything), one call each, then through leases (hot from the
     * first request, batches of up to 50); Redis's CPU in script calls from {@code INFO commandstats}
     * ({@code evalsha} and {@code eval}: the take and the give-back alike). A lease call decides every
     * copy in the script, so it costs more than one decision, but far less than one call per request.
     */
    @Test
    void leasesCostRedisFarLessCpuThanOneCallPerRequest() {
        Limit perRoute = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(1_000_000, 100_000));
        Limit total = new Limit("total", LimitScope.tenant(), new TokenBucket(1_000_000, 100_000));
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(1_000_000, QuotaPeriod.DAY));
        ScriptCalls calls = ScriptCalls.on(live.connection);
        MultiLimitScript script = new MultiLimitScript(calls);
        int requests = 1000;
        String warm = freshTenant("lease-cpu-warm");
        MultiLimitLeases warmLeases = new MultiLimitLeases(new RedisMultiLimitLeaseSource(script, calls),
                new LeasePolicy(0, 100, 50, 0.1, 60_000), MonotonicClock.system());
        for (int i = 0; i < 100; i++) { // both scripts cached, the JIT warm
            warmLeases.decide(charges(warm, perRoute, total, day)).toCompletableFuture().join();
            script.decide(charges(warm, perRoute, total, day)).join();
        }
        warmLeases.close();

        String plain = freshTenant("lease-cpu-plain");
        live.connection.sync().configResetstat();
        for (int i = 0; i < requests; i++) {
            assertThat(script.decide(charges(plain, perRoute, total, day)).join().decision().admitted()).isTrue();
        }
        long[] perRequest = scriptCpu();

        String leased = freshTenant("lease-cpu-leased");
        MultiLimitLeases leases = new MultiLimitLeases(new RedisMultiLimitLeaseSource(script, calls),
                new LeasePolicy(0, 100, 50, 0.1, 60_000), MonotonicClock.system());
        live.connection.sync().configResetstat();
        for (int i = 0; i < requests; i++) {
            MultiLimitLeases.Leased l = leases.decide(charges(leased, perRoute, total, day)).toCompletableFuture().join()
                    .orElseThrow();
            assertThat(l.decision().admitted()).isTrue();
        }
        leases.close();
        long[] withLeases = scriptCpu();
        System.out.printf("[multi-limit leases] Redis CPU for %d requests with 3 limits: one call each %d calls, %d us "
                        + "(%.2f us a request); leased %d calls (%d lease calls), %d us (%.2f us a request, %.2f x)%n",
                requests, perRequest[0], perRequest[1], perRequest[1] / (double) requests, withLeases[0],
                leases.leaseCalls(), withLeases[1], withLeases[1] / (double) requests,
                withLeases[1] / (double) perRequest[1]);
        assertThat(perRequest[0]).isEqualTo(requests);
        assertThat(withLeases[0]).isLessThan(requests / 10);
        assertThat(withLeases[1]).isLessThan(perRequest[1] / 2);
    }

    private static List<LimitCharge> charges(String tenant, Limit... limits) {
        List<LimitCharge> charges = new ArrayList<>();
        for (Limit limit : limits) {
            charges.add(LimitCharge.of(tenant, "r", limit));
        }
        return charges;
    }

    /** Script calls and their CPU (us) since the last reset: {@code evalsha} and {@code eval} together. */
    private static long[] scriptCpu() {
        String stats = live.connection.sync().info("commandstats");
        long calls = 0;
        long usec = 0;
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("cmdstat_(?:evalsha|eval):calls=(\\d+),usec=(\\d+)").matcher(stats);
        while (m.find()) {
            calls += Long.parseLong(m.group(1));
            usec += Long.parseLong(m.group(2));
        }
        return new long[] {calls, usec};
    }

    private static CalendarWindow quotaWindow(MultiLimitDecision decision) {
        return decision.outcomes().stream().map(LimitOutcome::window).filter(w -> w != null).findFirst().orElseThrow();
    }

    private static long redisNow() {
        return MultiLimitStates.redisNowMillis(bytes);
    }

    private static LimitState.Quota quotaState(LimitKey key) {
        return (LimitState.Quota) MultiLimitStates.inRedis(bytes, key, MultiLimitScript.DEFAULT_LAYOUT);
    }

    private static long quotaUsed(LimitKey key) {
        return quotaState(key).used();
    }

    private static long wholeTokens(LimitKey key) {
        return MultiLimitStates.wholeTokens(bytes, key, MultiLimitScript.DEFAULT_LAYOUT);
    }
}
