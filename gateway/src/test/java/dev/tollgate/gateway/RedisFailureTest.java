package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionOutcome;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.spring.limiter.RedisCircuitBreaker;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.spring.settings.RedisGuardProperties;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis killed, frozen, restarted and missing at start, under load through real gateways. Every
 * request must still be answered (never 5xx), limited by each instance's share of the rule, and the
 * Redis path must come back by itself.
 */
@NeedsTheCores
class RedisFailureTest {

    private static final Duration WAIT_IN_OPEN_STATE = Duration.ofSeconds(3);
    private static final Duration REDIS_TIMEOUT = Duration.ofMillis(100);
    private static final Logger MEASURED = LoggerFactory.getLogger("measured");

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private RunningGateway gateway(int redisPort, TestUpstream upstream) {
        return track(RunningGateway.start(properties(redisPort, upstream)));
    }

    private static Map<String, Object> properties(int redisPort, TestUpstream upstream) {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.data.redis.port", Integer.toString(redisPort));
        p.put("tollgate.source", "static");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        p.put("tollgate.default-rule.capacity", "1000000");
        p.put("tollgate.default-rule.refill-per-second", "1000000");
        p.putAll(RunningGateway.rule(0, "share", "create-order", 40, 0.001));
        p.putAll(RunningGateway.rule(1, "restart", "create-order", 2, 0.001));
        p.put("tollgate.redis.timeout", REDIS_TIMEOUT.toMillis() + "ms");
        p.put("tollgate.redis.connect-retry-delay", "200ms");
        p.put("tollgate.redis.reconnect-max-delay", "200ms");
        p.put("tollgate.redis.circuit-breaker.minimum-number-of-calls", "5");
        p.put("tollgate.redis.circuit-breaker.sliding-window", "1s");
        // One long opening rather than the default short first one, so that these tests can watch
        // the open state (the default's doubling has a test of its own).
        p.put("tollgate.redis.circuit-breaker.first-wait-in-open-state", WAIT_IN_OPEN_STATE.toMillis() + "ms");
        p.put("tollgate.redis.circuit-breaker.wait-in-open-state", WAIT_IN_OPEN_STATE.toMillis() + "ms");
        p.put("tollgate.redis.circuit-breaker.permitted-calls-in-half-open-state", "2");
        p.put("tollgate.fallback.heartbeat-interval", "200ms");
        p.put("tollgate.fallback.heartbeat-ttl", "1s");
        return p;
    }

    private static DecisionMetrics metrics(RunningGateway gateway) {
        return gateway.context().getBean(DecisionMetrics.class);
    }

    private static double fallbackDecisions(RunningGateway gateway) {
        DecisionMetrics m = metrics(gateway);
        return m.count(DecisionSource.LOCAL_FALLBACK);
    }

    /** Decisions on the Redis path: one call each, or from a lease taken from Redis. */
    private static double redisDecisions(RunningGateway gateway) {
        DecisionMetrics m = metrics(gateway);
        return m.count(DecisionSource.REDIS) + m.count(DecisionSource.LEASE);
    }

    private static CircuitBreaker breaker(RunningGateway gateway) {
        return gateway.context().getBean(CircuitBreaker.class);
    }

    private static int admitted(RunningGateway gateway, String tenant, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            HttpResponse<String> r = gateway.send("POST", "/orders", tenant);
            assertThat(r.statusCode()).isIn(200, 429);
            assertThat(r.headers().firstValue("X-RateLimit-Remaining")).isPresent();
            if (r.statusCode() == 429) {
                assertThat(r.headers().firstValue("Retry-After")).isPresent();
            } else {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void redisKilledUnderLoad_noRequestFails_andEachInstanceEnforcesItsShare() throws Exception {
        RedisServer redis = track(RedisServer.start());
        TestUpstream upstream = track(new TestUpstream());
        RunningGateway a = gateway(redis.port(), upstream);
        RunningGateway b = gateway(redis.port(), upstream);
        // Both instances learn from their heartbeats that there are two of them.
        await().atMost(Duration.ofSeconds(10)).until(() ->
                a.context().getBean(LiveInstances.class).count() == 2
                        && b.context().getBean(LiveInstances.class).count() == 2);

        GatewayLoad load = track(GatewayLoad.closedLoop(List.of(a, b), 4, "POST", "/orders", "load"));
        await().atMost(Duration.ofSeconds(10)).until(() -> load.total() > 200);
        redis.kill();
        int atKill = load.total();
        await().atMost(Duration.ofSeconds(20)).until(() -> load.total() > atKill + 500);
        Map<Integer, Integer> statuses = load.stop(Duration.ofSeconds(10));

        assertThat(statuses).as("status code -> count").containsOnlyKeys(200);
        assertThat(fallbackDecisions(a)).isPositive();
        assertThat(fallbackDecisions(b)).isPositive();
        assertThat(breaker(a).getState()).isEqualTo(CircuitBreaker.State.OPEN);

        // Rule: burst 40, no refill to speak of. Two live instances: 20 each, 40 in all.
        assertThat(admitted(a, "share", 60)).isEqualTo(20);
        assertThat(admitted(b, "share", 60)).isEqualTo(20);
    }

    @Test
    void redisFrozen_onceTheBreakerIsOpenNoRequestWaitsForRedis_andRedisResumesWhenThawed() {
        RedisServer redis = track(RedisServer.start());
        TestUpstream upstream = track(new TestUpstream());
        RunningGateway gateway = gateway(redis.port(), upstream);
        admitted(gateway, "warm", 20);
        // On the Redis path before the fault (a busy machine may push a rare call past the timeout).
        assertThat(redisDecisions(gateway)).isPositive();
        assertThat(breaker(gateway).getState()).isEqualTo(CircuitBreaker.State.CLOSED);

        redis.freeze();
        try {
            // The breaker judges the calls of the last second: it opens once failures are half of them.
            long frozenAt = System.nanoTime();
            while (breaker(gateway).getState() != CircuitBreaker.State.OPEN) {
                assertThat(gateway.send("POST", "/orders", "frozen").statusCode()).isEqualTo(200);
                assertThat(Duration.ofNanos(System.nanoTime() - frozenAt)).as("time until the breaker opens")
                        .isLessThan(Duration.ofSeconds(3));
            }
            // While the breaker stays open, no request may call Redis: each is refused a permit, and
            // no call is made (it would end as a success or an error event). Counted from the
            // breaker's events: its failure counts are a one-second window, which a slow machine
            // would see slide while the loop runs.
            List<Long> latencies = new ArrayList<>();
            CircuitBreaker cb = breaker(gateway);
            AtomicLong callsRefused = new AtomicLong();
            AtomicLong callsMade = new AtomicLong();
            cb.getEventPublisher()
                    .onCallNotPermitted(e -> callsRefused.incrementAndGet())
                    .onSuccess(e -> callsMade.incrementAndGet())
                    .onError(e -> callsMade.incrementAndGet());
            while (latencies.size() < 200) {
                long refused = callsRefused.get();
                long made = callsMade.get();
                long start = System.nanoTime();
                HttpResponse<String> r = gateway.send("POST", "/orders", "frozen");
                long elapsed = System.nanoTime() - start;
                assertThat(r.statusCode()).isEqualTo(200);
                if (cb.getState() != CircuitBreaker.State.OPEN) {
                    break; // wait-in-open-state is over: half-open probes may call Redis again
                }
                assertThat(callsRefused.get()).as("calls refused by the open breaker").isEqualTo(refused + 1);
                assertThat(callsMade.get()).as("Redis calls made while the breaker was open").isEqualTo(made);
                latencies.add(elapsed);
            }
            latencies.sort(null);
            String figures = latencies.isEmpty() ? "no request answered while the breaker was open"
                    : String.format("%d requests: p50 %.2f ms, p99 %.2f ms, max %.2f ms (Redis timeout %d ms)",
                    latencies.size(), latencies.get(latencies.size() / 2) / 1e6,
                    latencies.get(latencies.size() * 99 / 100) / 1e6, latencies.get(latencies.size() - 1) / 1e6,
                    REDIS_TIMEOUT.toMillis());
            MEASURED.info("[redis frozen, breaker open] {}", figures);
            assertThat(latencies).as("requests answered while the breaker was open; " + figures)
                    .hasSizeGreaterThanOrEqualTo(20);
            // A request that called the frozen Redis would take the whole timeout: most take far less.
            // (The counters above are the exact check; this one says the answers did not wait.)
            assertThat(Duration.ofNanos(latencies.get(latencies.size() / 2))).as("median; " + figures)
                    .isLessThan(REDIS_TIMEOUT);
        } finally {
            redis.thaw();
        }

        long thawed = System.nanoTime();
        double redisBefore = redisDecisions(gateway);
        await().atMost(WAIT_IN_OPEN_STATE.plusSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            gateway.send("POST", "/orders", "thawed");
            return breaker(gateway).getState() == CircuitBreaker.State.CLOSED && redisDecisions(gateway) > redisBefore;
        });
        MEASURED.info("[redis thawed] Redis path resumed after {} ms (wait in open state {} ms)",
                (System.nanoTime() - thawed) / 1_000_000, WAIT_IN_OPEN_STATE.toMillis());
    }

    /**
     * The breaker's own clock (monotonic, as in production), which remembers on each thread the last
     * time it gave: read in a state-transition listener, which the breaker calls on the thread that
     * just read its clock to make that transition, it is the exact instant the breaker decided on.
     */
    private static final class BreakerClockReadings implements MonotonicClock {

        private final ThreadLocal<long[]> lastRead = ThreadLocal.withInitial(() -> new long[1]);

        @Override
        public long nanoTime() {
            long now = MonotonicClock.system().nanoTime();
            lastRead.get()[0] = now;
            return now;
        }

        long lastReadOnThisThread() {
            return lastRead.get()[0];
        }
    }

    @Test
    void redisFrozen_theBreakerFirstOpensBriefly_andEachFailedProbeRoundDoublesTheWait() {
        RedisServer redis = track(RedisServer.start());
        TestUpstream upstream = track(new TestUpstream());
        Map<String, Object> p = properties(redis.port(), upstream);
        p.remove("tollgate.redis.circuit-breaker.first-wait-in-open-state"); // the defaults: 100 ms, doubling to 1 s
        p.remove("tollgate.redis.circuit-breaker.wait-in-open-state");
        // The production breaker, built as the gateway builds it, on a clock the test can read after it.
        BreakerClockReadings breakerClock = new BreakerClockReadings();
        RunningGateway gateway = track(RunningGateway.start(p, context -> context.registerBean("redisCircuitBreaker",
                CircuitBreaker.class, () -> RedisCircuitBreaker.of(RedisCircuitBreaker.registry(
                        context.getBean(RedisGuardProperties.class).circuitBreaker(), breakerClock)))));
        admitted(gateway, "warm", 20);
        List<long[]> openings = new CopyOnWriteArrayList<>(); // {opened at, half-open at}, on the breaker's clock
        breaker(gateway).getEventPublisher().onStateTransition(e -> {
            long decidedAt = breakerClock.lastReadOnThisThread();
            if (e.getStateTransition().getToState() == CircuitBreaker.State.OPEN) {
                openings.add(new long[] {decidedAt, 0});
            } else if (e.getStateTransition().getFromState() == CircuitBreaker.State.OPEN && !openings.isEmpty()) {
                openings.get(openings.size() - 1)[1] = decidedAt;
            }
        });

        redis.freeze();
        try {
            long frozenAt = System.nanoTime();
            // Sequential requests: each asks the breaker, so it leaves the open state on the first
            // request after its wait. Three openings ended: 100, 200 and 400 ms by the defaults.
            while (openings.stream().filter(o -> o[1] != 0).count() < 3) {
                assertThat(gateway.send("POST", "/orders", "frozen").statusCode()).isEqualTo(200);
                assertThat(Duration.ofNanos(System.nanoTime() - frozenAt)).as("three openings end within")
                        .isLessThan(Duration.ofSeconds(20));
            }
        } finally {
            redis.thaw();
        }
        List<Double> openMillis = openings.stream().filter(o -> o[1] != 0)
                .map(o -> (o[1] - o[0]) / 1e6).toList();
        MEASURED.info("[redis frozen, default breaker] open for {} ms in turn", openMillis);
        // From the clock reading that opened the breaker to the one that let it half-open: never less
        // than the wait, to the nanosecond.
        assertThat(openMillis.get(0)).as("first opening (ms)").isBetween(100.0, 999.0);
        assertThat(openMillis.get(1)).as("second opening (ms)").isGreaterThanOrEqualTo(200.0);
        assertThat(openMillis.get(2)).as("third opening (ms)").isGreaterThanOrEqualTo(400.0);
        double redisBefore = redisDecisions(gateway);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            gateway.send("POST", "/orders", "thawed");
            return breaker(gateway).getState() == CircuitBreaker.State.CLOSED && redisDecisions(gateway) > redisBefore;
        });
    }

    @Test
    void redisRestarted_scriptsAreReloadedAndBucketsStartFull() {
        RedisServer redis = track(RedisServer.start());
        TestUpstream upstream = track(new TestUpstream());
        RunningGateway gateway = gateway(redis.port(), upstream);
        assertThat(admitted(gateway, "restart", 5)).isEqualTo(2);

        redis.restart(); // same port, empty: no buckets, no scripts
        await().atMost(WAIT_IN_OPEN_STATE.plusSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            double before = redisDecisions(gateway);
            gateway.send("POST", "/orders", "probe");
            return redisDecisions(gateway) > before && breaker(gateway).getState() == CircuitBreaker.State.CLOSED;
        });
        // The bucket starts full again in the restarted Redis: two admissions by Redis. (On a busy
        // machine one call may still miss the timeout and be decided locally; that one is not Redis's.)
        DecisionMetrics metrics = metrics(gateway);
        double admittedByRedis = metrics.count(DecisionSource.REDIS, DecisionOutcome.ALLOWED);
        admitted(gateway, "restart", 5);
        assertThat(metrics.count(DecisionSource.REDIS, DecisionOutcome.ALLOWED) - admittedByRedis).isEqualTo(2);
        // Drained: less than one token (in micro-tokens) left in the new bucket.
        assertThat(Long.parseLong(redis.command("HGET", "rl:{restart}:create-order", "tokens"))).isLessThan(1_000_000);
    }

    @Test
    void redisUnreachableAtStart_theGatewayStartsServesAndPicksRedisUpLater() {
        int port = FreePort.find();
        TestUpstream upstream = track(new TestUpstream());
        RunningGateway gateway = gateway(port, upstream);

        assertThat(admitted(gateway, "early", 10)).isEqualTo(10);
        assertThat(fallbackDecisions(gateway)).isEqualTo(10);
        HttpResponse<String> health = gateway.management("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(health.body(), "$.status")).isEqualTo("DEGRADED");
        assertThat(JsonPath.<String>read(health.body(), "$.components.rateLimiter.details.mode")).isEqualTo("local-fallback");
        assertThat(JsonPath.<Boolean>read(health.body(), "$.components.rateLimiter.details.redisConnected")).isFalse();
        HttpResponse<String> liveness = gateway.management("/actuator/health/liveness");
        assertThat(liveness.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(liveness.body(), "$.status")).isEqualTo("UP");
        HttpResponse<String> readiness = gateway.management("/actuator/health/readiness");
        assertThat(readiness.statusCode()).isEqualTo(200);

        track(RedisServer.startOnPort(port));
        await().atMost(WAIT_IN_OPEN_STATE.plusSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            gateway.send("POST", "/orders", "later");
            return breaker(gateway).getState() == CircuitBreaker.State.CLOSED;
        });
        assertThat(redisDecisions(gateway)).isPositive();
        HttpResponse<String> recovered = gateway.management("/actuator/health");
        assertThat(JsonPath.<String>read(recovered.body(), "$.status")).isEqualTo("UP");
        assertThat(JsonPath.<String>read(recovered.body(), "$.components.rateLimiter.details.mode")).isEqualTo("redis");
        String prometheus = gateway.management("/actuator/prometheus").body();
        assertThat(prometheus)
                .contains("tollgate_decisions_total{outcome=\"allowed\",route=\"create-order\",source=\"local-fallback\"}")
                .contains("tollgate_decisions_total{outcome=\"allowed\",route=\"create-order\",source=\"redis\"}")
                .contains("resilience4j_circuitbreaker_state{name=\"redis\",state=\"closed\"} 1.0")
                .contains("tollgate_fallback_instances 1.0");
    }
}
