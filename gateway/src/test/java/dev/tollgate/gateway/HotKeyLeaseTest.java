package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.LimitKey;
import dev.tollgate.core.limits.LimitPrecedence;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.MultiLimitLeases;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.RuleBookLimits;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionOutcome;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A hot key through the gateway: once leased, its decisions are made from the lease and say so in
 * the metrics ({@code source="lease"}), without counting as Redis round trips or breaker calls; on the
 * multi-limit path too, where a lease holds whole requests charged to every limit.
 */
@MeasuresWaits // a key is leased from 20 requests a second of real time
class HotKeyLeaseTest {

    private static final int REQUESTS = 400;

    @Test
    void decisionsFromALeaseAreCountedAsLeaseNotAsRedisRoundTrips() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> p = RunningGateway.leasingOn(redis);
            p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
            p.putAll(RunningGateway.rule(0, "hot", "create-order", 100_000, 100_000));
            try (RunningGateway gateway = RunningGateway.start(p)) {
                for (int i = 0; i < REQUESTS; i++) {
                    assertThat(gateway.send("POST", "/orders", "hot").statusCode()).isEqualTo(200);
                }
                Allowed allowed = allowedMostlyFromLeases(gateway);
                double lease = allowed.lease();
                double viaRedis = allowed.viaRedis();

                // Only the requests that called Redis are latency samples and breaker calls.
                MeterRegistry meters = gateway.context().getBean(MeterRegistry.class);
                assertThat(meters.get("tollgate.redis.latency").timer().count()).isEqualTo((long) viaRedis);
                assertThat(meters.get("resilience4j.circuitbreaker.calls").tag("kind", "successful").timer().count())
                        .isEqualTo((long) viaRedis);
                assertThat(gateway.management("/actuator/prometheus").body())
                        .contains("tollgate_decisions_total{outcome=\"allowed\",route=\"create-order\",source=\"lease\"} "
                                + lease);
            }
        }
    }

    /**
     * A tenant with three limits (a bucket per route, a tenant-wide bucket, a day quota) on two hot
     * routes: most decisions come from leases ({@code source="lease"}, {@code tollgate_leases_multi_*}),
     * and the day quota in Redis counts exactly the requests admitted plus those still held on lease
     * (a 60 s TTL keeps every lease in place while it is read).
     */
    @Test
    void aHotMultiLimitTenantIsServedFromLeasesOfWholeRequests() {
        Limit perRoute = new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(100_000, 100_000));
        Limit total = new Limit("total", LimitScope.tenant(), new TokenBucket(100_000, 100_000));
        Limit daily = new Limit("daily", LimitScope.tenant(), new CalendarQuota(1_000_000, QuotaPeriod.DAY));
        LimitBook book = (tenant, route) -> tenant.equals("plan") ? new AppliedLimits(List.of(perRoute, total, daily)
                .stream().map(l -> new LimitPrecedence.Applied(l, LimitPrecedence.Source.PLAN)).toList(), null)
                : RuleBookLimits.applied(RateLimitRule.of(100, 100));
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> p = RunningGateway.leasingOn(redis);
            p.put("tollgate.hot-keys.leases.ttl", "60s");
            p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
            p.putAll(RunningGateway.route(1, "catalog", "GET", "/catalog/**", upstream.uri()));
            try (RunningGateway gateway = RunningGateway.start(p, context -> context.registerBean(LimitBook.class, () -> book))) {
                for (int i = 0; i < REQUESTS; i++) {
                    int status = i % 2 == 0 ? gateway.send("POST", "/orders", "plan").statusCode()
                            : gateway.send("GET", "/catalog/x", "plan").statusCode();
                    assertThat(status).isEqualTo(200);
                }
                Allowed allowed = allowedMostlyFromLeases(gateway);
                double lease = allowed.lease();
                double viaRedis = allowed.viaRedis();
                MultiLimitLeases leases = gateway.context().getBean(MultiLimitLeases.class);
                System.out.printf("[multi-limit leases] gateway: %d requests, %.0f from leases, %.0f via Redis, "
                        + "%d lease calls%n", REQUESTS, lease, viaRedis, leases.leaseCalls());
                assertThat(leases.localDecisions()).isEqualTo((long) lease);
                String prometheus = gateway.management("/actuator/prometheus").body();
                assertThat(prometheus).contains("tollgate_leases_multi_calls_total " + (double) leases.leaseCalls())
                        .contains("tollgate_decisions_total{outcome=\"allowed\",route=\"catalog\",source=\"lease\"}");

                RedisClient client = RedisClient.create(redis.uri());
                try (StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE)) {
                    LimitKey day = daily.keyFor("plan", "catalog");
                    // A quota's state: 6 bytes of window start, then 5 of count.
                    byte[] bytes = c.sync().hget(MultiLimitScript.redisKey(day).getBytes(StandardCharsets.UTF_8),
                            MultiLimitScript.field(day).getBytes(StandardCharsets.UTF_8));
                    assertThat(bytes).hasSize(11);
                    long used = 0;
                    for (int i = 6; i < 11; i++) {
                        used = (used << 8) | (bytes[i] & 0xFF);
                    }
                    assertThat(used).isEqualTo(REQUESTS + leases.heldRequests());
                } finally {
                    client.shutdown();
                }
            }
        }
    }

    /** Allowed decisions by source, in the gateway's metrics. */
    private record Allowed(double lease, double viaRedis) {
    }

    /** Every one of the {@link #REQUESTS} was allowed, more than half of them from a lease. */
    private static Allowed allowedMostlyFromLeases(RunningGateway gateway) {
        DecisionMetrics metrics = gateway.context().getBean(DecisionMetrics.class);
        Allowed allowed = new Allowed(metrics.count(DecisionSource.LEASE, DecisionOutcome.ALLOWED),
                metrics.count(DecisionSource.REDIS, DecisionOutcome.ALLOWED));
        assertThat(allowed.lease() + allowed.viaRedis()).isEqualTo(REQUESTS);
        assertThat(allowed.lease()).isGreaterThan(REQUESTS / 2.0);
        return allowed;
    }
}
