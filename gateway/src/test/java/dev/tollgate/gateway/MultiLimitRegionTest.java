package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.LimitPrecedence;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two regions (eu 0.7, us 0.3), each with a Redis of its own, rules from configuration (no
 * PostgreSQL, so the default shares): every limit of a multi-limit request is enforced at the
 * region's share, so the regions together admit the day quota, not twice it; headers show the
 * region's share. (Without PostgreSQL there is no rebalancer: demand is {@code DemandRecorderTest}'s.)
 */
class MultiLimitRegionTest {

    private static final List<Limit> LIMITS = List.of(
            new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(100, 0.001)),
            new Limit("daily", LimitScope.tenant(), new CalendarQuota(20, QuotaPeriod.DAY)));

    private static final LimitBook BOOK = (tenant, route) -> new AppliedLimits(
            LIMITS.stream().map(l -> new LimitPrecedence.Applied(l, LimitPrecedence.Source.PLAN)).toList(), null);

    private static RunningGateway gateway(String region, RedisServer redis, TestUpstream upstream) {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.source", "static");
        p.put("tollgate.redis.timeout", "5s");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        p.put("tollgate.region", region);
        p.put("tollgate.regions.eu.share", "0.7");
        p.put("tollgate.regions.us.share", "0.3");
        return RunningGateway.start(p, context -> context.registerBean(LimitBook.class, () -> BOOK));
    }

    private static int admitted(RunningGateway gateway, int requests, String policy) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            HttpResponse<String> r = gateway.send("POST", "/orders", "worldwide");
            assertThat(r.statusCode()).isIn(200, 429);
            assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue(policy);
            admitted += r.statusCode() == 200 ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void eachRegionEnforcesItsShareOfEveryLimit() {
        try (RedisServer euRedis = RedisServer.start(); RedisServer usRedis = RedisServer.start();
             TestUpstream upstream = new TestUpstream();
             RunningGateway eu = gateway("eu", euRedis, upstream); RunningGateway us = gateway("us", usRedis, upstream)) {
            // eu: 70 of the burst, floor(20 × 0.7) = 14 of the day; us: 30 and 6. Together the day's 20. (The
            // rate, 0.001 × 0.7, is raised to the floor of 0.001 token/s: w is 70,000 s.)
            assertThat(admitted(eu, 20, "\"per-route\";q=70;w=70000, \"daily\";q=14;w=86400")).isEqualTo(14);
            assertThat(admitted(us, 20, "\"per-route\";q=30;w=30000, \"daily\";q=6;w=86400")).isEqualTo(6);
        }
    }
}
