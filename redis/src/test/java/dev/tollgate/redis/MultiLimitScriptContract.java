package dev.tollgate.redis;

import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.ManualClock;
import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.Allowance;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitKey;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.LimitState;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.core.limits.MultiLimitLeases;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.ReferenceLimitEvaluator;
import dev.tollgate.core.limits.TokenBucket;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * {@code multi_limit.lua} through {@link MultiLimitScript} against {@link ReferenceLimitEvaluator}, on a
 * real Redis (7, 6.2, a cluster: one subclass each). Redis's clock cannot be set, so the reference is
 * evaluated at the {@code now} the script reports, quotas count in short synthetic windows
 * ({@link SyntheticWindows}, sent as tables), and real time is let pass between some requests (a
 * park of up to 20 ms: the one clock here that cannot be injected). Clock steps back are staged by
 * writing states ahead of Redis's clock, in Redis and in the reference alike.
 */
abstract class MultiLimitScriptContract {

    private static final AtomicInteger TENANTS = new AtomicInteger();
    private static final List<String> ROUTES = List.of("r1", "r2", "r:3/{x}");
    private static final List<ZoneId> ZONES = List.of(ZoneOffset.UTC, ZoneId.of("Europe/Berlin"));

    /** Script calls on the server under test. */
    protected abstract ScriptCalls calls();

    /** A binary-safe view of the same server, to read and stage states. */
    protected abstract RedisClusterCommands<byte[], byte[]> bytes();

    /** A new string connection to the server (the caller closes it). */
    protected abstract StatefulConnection<String, String> newConnection();

    /** Where states are kept (the script is the same for every layout). */
    protected MultiLimitScript.Layout layout() {
        return MultiLimitScript.DEFAULT_LAYOUT;
    }

    /** Connections the parallel test spreads its calls over. */
    protected int parallelConnections() {
        return 16;
    }

    private static String freshTenant(String name) {
        return name + "-" + TENANTS.incrementAndGet() + "-" + System.nanoTime();
    }

    @Test
    void decisionsAndStatesMatchTheReferenceAtRedisNow() {
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger staleRetries = new AtomicInteger();
        AtomicInteger admittedCount = new AtomicInteger();
        AtomicInteger stagedSteps = new AtomicInteger();
        forAll(25, random -> {
            SyntheticWindows windows = new SyntheticWindows(random.nextLong());
            MultiLimitScript script = MultiLimitScript.withWindowTables(calls(), windows, WallClock.system(), layout());
            ReferenceLimitEvaluator reference = new ReferenceLimitEvaluator(windows);
            List<Limit> limits = randomLimits(random);
            List<String> tenants = List.of(freshTenant("diff"), freshTenant("shop:a{b}"), freshTenant("t"));
            long now = 0;
            for (int request = 0; request < 80; request++) {
                if (random.nextInt(5) == 0) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(20)));
                }
                String tenant = tenants.get(random.nextInt(tenants.size()));
                String route = ROUTES.get(random.nextInt(ROUTES.size()));
                List<LimitCharge> charges = new ArrayList<>();
                for (Limit limit : limits) {
                    if (limit.appliesTo(route)) {
                        long cost = random.nextInt(8) == 0 ? limit.cost() + random.nextInt(3) : limit.cost();
                        charges.add(new LimitCharge(limit.keyFor(tenant, route), limit, cost));
                    }
                }
                if (charges.isEmpty()) {
                    continue;
                }
                if (now > 0 && random.nextInt(12) == 0) {
                    stageStepBack(random, windows, reference, charges.get(random.nextInt(charges.size())), now);
                    stagedSteps.incrementAndGet();
                }
                MultiLimitScript.Reply reply = script.decide(charges).join();
                now = reply.nowMillis();
                MultiLimitDecision expected = reference.decide(charges, now);
                assertThat(reply.decision()).as("request %d at %d: %s", request, now, charges).isEqualTo(expected);
                for (LimitCharge charge : charges) {
                    assertSameState(charge, windows, reference.state(charge.key()), request);
                }
                requests.incrementAndGet();
                staleRetries.addAndGet(reply.attempts() - 1);
                if (expected.admitted()) {
                    admittedCount.incrementAndGet();
                }
            }
        });
        System.out.printf("multi-limit differential: %d requests, %d admitted, %d step-back states staged, "
                + "%d stale-window retries%n", requests.get(), admittedCount.get(), stagedSteps.get(), staleRetries.get());
        assertThat(admittedCount.get()).isBetween(requests.get() / 10, requests.get() - requests.get() / 10);
    }

    /**
     * Requests decided together (one call per slot, up to a batch's size) decide exactly as the same
     * requests one call each, in order: a state charged by several requests of a batch is decided on
     * what the earlier ones left, a rejected request takes nothing that a later one could miss. Batches
     * of 1-12 requests over 3 tenants and 3 routes (so states recur within a batch), compared with the
     * reference in the order the script took them: a batch's first-attempt decisions in batch order,
     * then those that were asked again after a stale-windows answer (states are per tenant, and a
     * tenant is in one slot, so the order between tenants does not matter).
     */
    @Test
    void aBatchDecidesAsItsRequestsOneAfterAnother() {
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger admittedCount = new AtomicInteger();
        AtomicInteger batches = new AtomicInteger();
        forAll(15, random -> {
            SyntheticWindows windows = new SyntheticWindows(random.nextLong());
            MultiLimitScript script = MultiLimitScript.withWindowTables(calls(), windows, WallClock.system(), layout());
            ReferenceLimitEvaluator reference = new ReferenceLimitEvaluator(windows);
            List<Limit> limits = randomLimits(random);
            List<String> tenants = List.of(freshTenant("batch"), freshTenant("shop:a{b}"), freshTenant("t"));
            for (int b = 0; b < 12; b++) {
                if (random.nextInt(3) == 0) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(30)));
                }
                List<List<LimitCharge>> batch = new ArrayList<>();
                int size = 1 + random.nextInt(12);
                while (batch.size() < size) {
                    String tenant = tenants.get(random.nextInt(tenants.size()));
                    String route = ROUTES.get(random.nextInt(ROUTES.size()));
                    List<LimitCharge> charges = new ArrayList<>();
                    for (Limit limit : limits) {
                        if (limit.appliesTo(route)) {
                            long cost = random.nextInt(8) == 0 ? limit.cost() + random.nextInt(3) : limit.cost();
                            charges.add(new LimitCharge(limit.keyFor(tenant, route), limit, cost));
                        }
                    }
                    if (!charges.isEmpty()) {
                        batch.add(charges);
                    }
                }
                List<MultiLimitScript.Reply> replies = script.decideTogether(batch).stream()
                        .map(java.util.concurrent.CompletableFuture::join).toList();
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < batch.size(); i++) {
                    order.add(i);
                }
                order.sort(java.util.Comparator.comparingInt((Integer i) -> replies.get(i).attempts())
                        .thenComparingInt(i -> i));
                for (int i : order) {
                    MultiLimitDecision expected = reference.decide(batch.get(i), replies.get(i).nowMillis());
                    assertThat(replies.get(i).decision()).as("batch %d, request %d of %d at %d: %s", b, i, batch.size(),
                            replies.get(i).nowMillis(), batch.get(i)).isEqualTo(expected);
                    requests.incrementAndGet();
                    if (expected.admitted()) {
                        admittedCount.incrementAndGet();
                    }
                }
                for (List<LimitCharge> charges : batch) {
                    for (LimitCharge charge : charges) {
                        assertSameState(charge, windows, reference.state(charge.key()), b);
                    }
                }
                batches.incrementAndGet();
            }
        });
        System.out.printf("multi-limit batches: %d batches, %d requests, %d admitted%n", batches.get(), requests.get(),
                admittedCount.get());
        assertThat(admittedCount.get()).isBetween(requests.get() / 10, requests.get() - requests.get() / 10);
    }

    /**
     * 1,000 requests at once over several connections on one tenant with three limits (a bucket per
     * route of 60, a tenant bucket of 137, a tenant day quota of 100, UTC: computed in the script):
     * exactly the smallest is admitted, and every limit holds exactly what the admitted requests took
     * (a rejected request charged none of them).
     */
    @Test
    void aThousandParallelRequestsAreAllOrNothing() throws Exception {
        String tenant = freshTenant("parallel");
        Limit perRoute = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(60, 0.001));
        Limit total = new Limit("total", LimitScope.tenant(), new TokenBucket(137, 0.001));
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(100, QuotaPeriod.DAY));
        List<String> routes = List.of("a", "b");
        int requests = 1000;
        int threads = 32;
        List<StatefulConnection<String, String>> pool = new ArrayList<>();
        List<MultiLimitScript> scripts = new ArrayList<>();
        for (int i = 0; i < parallelConnections(); i++) {
            StatefulConnection<String, String> c = newConnection();
            pool.add(c);
            scripts.add(new MultiLimitScript(ScriptCalls.on(c), layout()));
        }
        AtomicInteger[] admittedOn = {new AtomicInteger(), new AtomicInteger()};
        try {
            AllAtOnce.send(threads, requests, Duration.ofSeconds(120), i -> {
                int r = i % 2;
                String route = routes.get(r);
                List<LimitCharge> charges = List.of(LimitCharge.of(tenant, route, perRoute),
                        LimitCharge.of(tenant, route, total), LimitCharge.of(tenant, route, day));
                if (scripts.get(i % scripts.size()).decide(charges).join().decision().admitted()) {
                    admittedOn[r].incrementAndGet();
                }
            });
        } finally {
            pool.forEach(StatefulConnection::close);
        }
        int admitted = admittedOn[0].get() + admittedOn[1].get();
        assertThat(admitted).isEqualTo(100);
        assertThat(stateInRedis(day.keyFor(tenant, "a"))).isInstanceOfSatisfying(LimitState.Quota.class,
                q -> assertThat(q.used()).isEqualTo(100));
        // Refill at 0.001 token/s adds well under one token during the test: whole tokens are exact.
        assertThat(wholeTokens(total.keyFor(tenant, "a"))).isEqualTo(137 - admitted);
        for (int r = 0; r < 2; r++) {
            assertThat(admittedOn[r].get()).isLessThanOrEqualTo(60);
            assertThat(wholeTokens(perRoute.keyFor(tenant, routes.get(r)))).isEqualTo(60 - admittedOn[r].get());
        }
    }

    /**
     * A gateway whose clock is ten minutes behind Redis's sends a table that does not hold Redis's
     * now: the script decides nothing and says so, and the second call, with a table around Redis's
     * clock, decides.
     */
    @Test
    void aStaleWindowTableIsAnsweredAndRetriedNeverGuessed() {
        String tenant = freshTenant("stale");
        Limit month = new Limit("month", LimitScope.tenant(), new CalendarQuota(5, QuotaPeriod.MONTH, ZoneId.of("Europe/Berlin")));
        Limit minute = new Limit("minute", LimitScope.eachRoute(), new CalendarQuota(3, QuotaPeriod.MINUTE, ZoneId.of("Europe/Berlin")));
        MultiLimitScript behind = MultiLimitScript.withWindowTables(calls(), CalendarQuota::windowAt,
                () -> Instant.now().minusSeconds(600), layout());
        MultiLimitScript.Reply reply = behind.decide(List.of(LimitCharge.of(tenant, "r", minute),
                LimitCharge.of(tenant, "r", month))).join();
        assertThat(reply.attempts()).isEqualTo(2);
        assertThat(reply.decision().admitted()).isTrue();
        assertThat(reply.decision().outcomes().get(0).window()).isEqualTo(
                CalendarQuota.class.cast(minute.allowance()).windowAt(reply.nowMillis()));
        assertThat(reply.decision().outcomes().get(1).window()).isEqualTo(
                CalendarQuota.class.cast(month.allowance()).windowAt(reply.nowMillis()));
        assertThat(reply.decision().outcomes().get(1).remaining()).isEqualTo(4);
    }

    /** A day quota's key lives until its window ends, and its hash stays small (listpack / ziplist). */
    @Test
    void aKeyExpiresWhenItsLastFieldStopsMattering() {
        String tenant = freshTenant("expiry");
        Limit rate = new Limit("rate", LimitScope.tenant(), new TokenBucket(10, 1)); // fills in 10 s
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(1000, QuotaPeriod.DAY));
        MultiLimitScript script = new MultiLimitScript(calls(), layout());
        MultiLimitScript.Reply reply = script.decide(List.of(LimitCharge.of(tenant, "r", rate))).join();
        byte[] key = MultiLimitScript.redisKey(rate.keyFor(tenant, "r"), layout()).getBytes(StandardCharsets.UTF_8);
        assertThat(bytes().pttl(key)).isBetween(19_000L, 20_002L);
        reply = script.decide(List.of(LimitCharge.of(tenant, "r", rate), LimitCharge.of(tenant, "r", day))).join();
        long dayEnd = reply.decision().outcomes().get(1).window().endMillis();
        assertThat(bytes().pttl(key)).isBetween(dayEnd - reply.nowMillis() - 1_000, dayEnd - reply.nowMillis() + 2);
        // The bucket alone again: the expiry is not shortened below what the day quota needs.
        script.decide(List.of(LimitCharge.of(tenant, "r", rate))).join();
        assertThat(bytes().pttl(key)).isGreaterThan(dayEnd - reply.nowMillis() - 1_000);
        assertThat(bytes().objectEncoding(key)).isIn("listpack", "ziplist");
    }

    /**
     * A multi-limit lease ({@link RedisMultiLimitLeaseSource}: the take is this script deciding 10
     * copies, the give-back {@code multi_limit_return.lua}) on every server and layout: the states end
     * exactly as the 3 requests served left them (a route bucket of 100: 97; a tenant day quota: 3).
     */
    @Test
    void aLeaseGivesBackExactlyWhatItDidNotSpend() {
        Limit rate = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(100, 0.001));
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(100, QuotaPeriod.DAY));
        MultiLimitScript script = new MultiLimitScript(calls(), layout());
        for (int i = 0; i < 10; i++) {
            MultiLimitLeases leases = new MultiLimitLeases(new RedisMultiLimitLeaseSource(script, calls()),
                    new LeasePolicy(0, 60_000, 10, 1.0, 600_000), new ManualClock());
            String tenant = freshTenant("lease");
            List<LimitCharge> charges = List.of(LimitCharge.of(tenant, "orders", rate), LimitCharge.of(tenant, "orders", day));
            for (int r = 0; r < 3; r++) {
                assertThat(leases.decide(charges).toCompletableFuture().join().orElseThrow().decision().admitted()).isTrue();
            }
            assertThat(leases.heldRequests()).isEqualTo(7);
            leases.close();
            assertThat(wholeTokens(rate.keyFor(tenant, "orders"))).isEqualTo(97);
            assertThat(stateInRedis(day.keyFor(tenant, "orders"))).isInstanceOfSatisfying(LimitState.Quota.class,
                    q -> assertThat(q.used()).isEqualTo(3));
        }
    }

    /**
     * Redis holds what the reference holds, or nothing where the reference's state no longer matters
     * (a full bucket, a quota whose window is over): the key expired, as it is meant to.
     */
    private void assertSameState(LimitCharge charge, SyntheticWindows windows, LimitState expected, int request) {
        LimitState actual = stateInRedis(charge.key());
        if (actual == null && expected != null) {
            long redisNow = MultiLimitStates.redisNowMillis(bytes());
            if (expected instanceof LimitState.Bucket bucket) {
                var limits = ((TokenBucket) charge.limit().allowance()).limits(1);
                assertThat(bucket.tsMillis()).as("expired bucket %s", charge.key()).isLessThanOrEqualTo(redisNow);
                assertThat(dev.tollgate.core.TokenBucketMath.refill(bucket.tokens(), redisNow - bucket.tsMillis(), limits))
                        .as("expired bucket %s is full", charge.key()).isEqualTo(limits.capacityMicros());
            } else {
                LimitState.Quota quota = (LimitState.Quota) expected;
                assertThat(windows.windowAt((CalendarQuota) charge.limit().allowance(), quota.windowStartMillis())
                        .endMillis()).as("expired quota %s's window is over", charge.key()).isLessThanOrEqualTo(redisNow);
            }
            return;
        }
        assertThat(actual).as("state of %s after request %d", charge.key(), request).isEqualTo(expected);
    }

    private long wholeTokens(LimitKey key) {
        return MultiLimitStates.wholeTokens(bytes(), key, layout());
    }

    private LimitState stateInRedis(LimitKey key) {
        return MultiLimitStates.inRedis(bytes(), key, layout());
    }

    /**
     * Writes a state as a clock further ahead would have (a bucket written up to two fill times
     * ahead, a quota counted in a later window), in Redis and in the reference.
     */
    private void stageStepBack(SplittableRandom random, SyntheticWindows windows, ReferenceLimitEvaluator reference,
                               LimitCharge charge, long now) {
        LimitState state;
        if (charge.limit().allowance() instanceof TokenBucket bucket) {
            var limits = bucket.limits(1);
            long tokens = random.nextLong(limits.capacityMicros() + 1);
            state = new LimitState.Bucket(tokens, now + 1 + random.nextLong(2 * limits.millisToFill() + 50));
        } else {
            CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
            long later = windows.windowAt(quota, now + random.nextInt(400)).startMillis();
            state = new LimitState.Quota(later, random.nextLong(quota.quota() + 1));
        }
        byte[] key = MultiLimitScript.redisKey(charge.key(), layout()).getBytes(StandardCharsets.UTF_8);
        // Extended first, so that a key about to expire cannot take the staged field with it (if it
        // expires before this, everything it held no longer mattered).
        bytes().pexpire(key, 60_000);
        bytes().hset(key, MultiLimitScript.field(charge.key(), layout()).getBytes(StandardCharsets.UTF_8),
                MultiLimitStates.encode(state));
        // The staged state must outlive its key's expiry, as the script would have seen to.
        bytes().hset(key, "_xp".getBytes(StandardCharsets.UTF_8),
                Long.toString(now + 60_000).getBytes(StandardCharsets.UTF_8));
        bytes().pexpire(key, 60_000);
        reference.put(charge.key(), state);
    }

    private static List<Limit> randomLimits(SplittableRandom random) {
        int count = 1 + random.nextInt(4);
        List<Limit> limits = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < count; i++) {
            LimitScope scope = switch (random.nextInt(3)) {
                case 0 -> LimitScope.route(ROUTES.get(random.nextInt(ROUTES.size())));
                case 1 -> LimitScope.eachRoute();
                default -> LimitScope.tenant();
            };
            double[] rates = {0.5, 5, 50, 200};
            Allowance allowance = random.nextBoolean()
                    ? new TokenBucket(1 + random.nextInt(5), rates[random.nextInt(rates.length)])
                    : new CalendarQuota(1 + random.nextInt(6), QuotaPeriod.values()[random.nextInt(4)],
                            ZONES.get(random.nextInt(ZONES.size())));
            long cost = 1 + random.nextInt((int) Math.min(2, allowance.maxCost()));
            String name = "l" + i;
            names.add(name);
            limits.add(new Limit(name, scope, allowance, cost, random.nextInt(5) == 0));
        }
        return limits;
    }
}
