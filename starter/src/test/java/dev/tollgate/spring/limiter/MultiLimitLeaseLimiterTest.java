package dev.tollgate.spring.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.ManualClock;
import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.LocalMultiLimitStore;
import dev.tollgate.core.limits.MultiLimitLeases;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.RedisMultiLimitLeaseSource;
import dev.tollgate.redis.ScriptCalls;
import dev.tollgate.testkit.RedisServer;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The multi-limit path with hot-key leases, on a real Redis: a hot charge set is served from a lease
 * (source {@code lease}) after the request whose call fetched it (source {@code redis}); the local
 * fallback follows every decision of the fetch, so a switch to it counts the leased requests as taken;
 * while the breaker is open no lease is used.
 */
class MultiLimitLeaseLimiterTest {

    private static final int INSTANCES = 2;
    private static final Limit RATE = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(100, 0.001));
    /** 10 a day for the whole tenant: each instance's share while falling back is 5 at most. */
    private static final Limit DAY = new Limit("day", LimitScope.tenant(), new CalendarQuota(10, QuotaPeriod.DAY));
    /** Every set hot from its first request, batches of up to half of the quota (5), sized for a minute. */
    private static final LeasePolicy POLICY = new LeasePolicy(0, 60_000, 50, 0.5, 600_000);

    private RedisServer redis;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private CircuitBreaker breaker;
    private MultiLimitLeases leases;
    private MultiLimitLimiter limiter;
    private SimpleMeterRegistry meters;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        client = RedisClient.create(redis.uri());
        client.setDefaultTimeout(Duration.ofSeconds(2));
        connection = client.connect();
        breaker = CircuitBreaker.ofDefaults("redis");
        ScriptCalls calls = ScriptCalls.on(connection);
        MultiLimitScript script = new MultiLimitScript(calls);
        leases = new MultiLimitLeases(new RedisMultiLimitLeaseSource(script, calls), POLICY, new ManualClock());
        meters = new SimpleMeterRegistry();
        limiter = new MultiLimitLimiter(script, new LocalMultiLimitStore(() -> INSTANCES, WallClock.system()), breaker,
                new DecisionMetrics(meters), leases);
    }

    @AfterEach
    void stop() {
        leases.close();
        connection.close();
        client.shutdown();
        redis.close();
    }

    private MultiLimitLimiter.Sourced decide(String tenant) {
        return limiter.decide(List.of(LimitCharge.of(tenant, "orders", RATE), LimitCharge.of(tenant, "orders", DAY)))
                .toCompletableFuture().join();
    }

    @Test
    void aHotChargeSetIsServedFromALeaseAfterTheCallThatFetchedIt() {
        List<DecisionSource> sources = new ArrayList<>();
        int admitted = 0;
        for (int i = 0; i < 12; i++) {
            MultiLimitLimiter.Sourced d = decide("shop");
            sources.add(d.source());
            admitted += d.decision().admitted() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(10);
        // Two batches of 5 (the first request of each fetched it); then the quota's rejection came with
        // the third fetch, and the last request is rejected here until the day ends.
        assertThat(sources).containsExactly(DecisionSource.REDIS, DecisionSource.LEASE, DecisionSource.LEASE,
                DecisionSource.LEASE, DecisionSource.LEASE, DecisionSource.REDIS, DecisionSource.LEASE,
                DecisionSource.LEASE, DecisionSource.LEASE, DecisionSource.LEASE, DecisionSource.REDIS,
                DecisionSource.LEASE);
        assertThat(leases.leaseCalls()).isEqualTo(3);
    }

    @Test
    void theFallbackCountsLeasedRequestsAsTakenAndLeasesRestWhileTheBreakerIsOpen() {
        MultiLimitLimiter.Sourced first = decide("shop");
        assertThat(first.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(leases.heldRequests()).isEqualTo(4);

        breaker.transitionToForcedOpenState();
        int admitted = 0;
        for (int i = 0; i < 6; i++) {
            MultiLimitLimiter.Sourced d = decide("shop");
            assertThat(d.source()).isEqualTo(DecisionSource.LOCAL_FALLBACK);
            admitted += d.decision().admitted() ? 1 : 0;
        }
        // Redis had 5 left after the lease took 5: this instance's share is floor(5 / 2) = 2, not the
        // floor(9 / 2) = 4 that following only the fetching request's decision would leave.
        assertThat(admitted).isEqualTo(2);
        assertThat(leases.heldRequests()).as("no lease is spent while the breaker is open").isEqualTo(4);
    }

    @Test
    void afterTheFallbackAdmittedAloneNoLeaseIsFetchedUntilRedisIsChargedWithIt() {
        // Redis gone for this instance: its share of the day's 10 is 5, all admitted here alone.
        breaker.transitionToForcedOpenState();
        for (int i = 0; i < 5; i++) {
            assertThat(decide("back").decision().admitted()).isTrue();
        }
        breaker.transitionToClosedState();

        // Redis back, with none of those 5 counted: the first decision is this one request alone (a
        // lease of 5 would pre-admit them from a count of 0, and the charge, capped at the 5 then left,
        // could not take the fallback's 5 back: 15 admitted of 10 with the other instance's 5).
        MultiLimitLimiter.Sourced first = decide("back");
        assertThat(first.source()).isEqualTo(DecisionSource.REDIS);
        assertThat(first.decision().admitted()).isTrue();
        assertThat(leases.leaseCalls()).isZero();
        assertThat(leases.heldRequests()).isZero();

        // Once the charge has landed (1 + 5 of 10 in Redis), leases are used again, from what is left.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                meters.find("tollgate.fallback.charges").tag("outcome", "charged").counter() != null
                        && meters.find("tollgate.fallback.charges").tag("outcome", "charged").counter().count() == 1);
        int admitted = 6; // the fallback's 5 and the first Redis decision
        for (int i = 0; i < 6; i++) {
            admitted += decide("back").decision().admitted() ? 1 : 0;
        }
        assertThat(leases.leaseCalls()).isPositive();
        assertThat(admitted).as("over the day, with this instance alone").isEqualTo(10);
    }
}
