package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.LimitPrecedence;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A day quota through an outage of Redis in the middle of the day, on two gateways: part of the quota
 * is spent on Redis, Redis stops (SIGSTOP: calls time out, the breaker opens), each gateway carries
 * on from what Redis last told it, Redis comes back and is charged with what the gateways admitted
 * alone. Over the day at most the quota plus one request per instance ({@code LocalMultiLimitStore}'s
 * bound, traffic spread evenly), where the local shares used to hand out a whole quota again.
 */
class MultiLimitOutageTest {

    private static final long QUOTA = 40;
    private static final int INSTANCES = 2;

    private static final List<Limit> LIMITS = List.of(
            new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(1_000, 0.001)),
            new Limit("daily", LimitScope.tenant(), new CalendarQuota(QUOTA, QuotaPeriod.DAY)));

    private static final LimitBook BOOK = (tenant, route) -> new AppliedLimits(
            LIMITS.stream().map(l -> new LimitPrecedence.Applied(l, LimitPrecedence.Source.PLAN)).toList(), null);

    private static RunningGateway gateway(RedisServer redis, TestUpstream upstream) {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.data.redis.host", redis.host());
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.source", "static");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        p.put("tollgate.redis.timeout", "200ms");
        p.put("tollgate.redis.connect-retry-delay", "200ms");
        p.put("tollgate.redis.reconnect-max-delay", "200ms");
        p.put("tollgate.redis.circuit-breaker.minimum-number-of-calls", "3");
        p.put("tollgate.redis.circuit-breaker.sliding-window", "1s");
        p.put("tollgate.redis.circuit-breaker.first-wait-in-open-state", "1s");
        p.put("tollgate.redis.circuit-breaker.wait-in-open-state", "1s");
        p.put("tollgate.fallback.heartbeat-interval", "200ms");
        p.put("tollgate.fallback.heartbeat-ttl", "30s");
        return RunningGateway.start(p, context -> context.registerBean(LimitBook.class, () -> BOOK));
    }

    private static boolean admitted(RunningGateway gateway) {
        HttpResponse<String> r = gateway.send("POST", "/orders", "midday");
        assertThat(r.statusCode()).isIn(200, 429);
        return r.statusCode() == 200;
    }

    private static double charges(RunningGateway gateway, String outcome) {
        return gateway.context().getBean(MeterRegistry.class).get("tollgate.fallback.charges").tag("outcome", outcome)
                .counter().count();
    }

    private static double redisDecisions(RunningGateway gateway) {
        return gateway.context().getBean(DecisionMetrics.class).count(DecisionSource.REDIS);
    }

    @Test
    void aDayQuotaStaysWithinItsBoundThroughAnOutageInTheMiddleOfTheDay() {
        try (RedisServer redis = RedisServer.start(); TestUpstream upstream = new TestUpstream();
             RunningGateway a = gateway(redis, upstream); RunningGateway b = gateway(redis, upstream)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> a.context().getBean(LiveInstances.class).count() == 2
                    && b.context().getBean(LiveInstances.class).count() == 2);
            List<RunningGateway> both = List.of(a, b);
            long admitted = 0;
            for (int i = 0; i < 20; i++) {
                admitted += admitted(both.get(i % 2)) ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(20);
            assertThat(redisDecisions(a) + redisDecisions(b)).isEqualTo(20);

            redis.freeze();
            long outage = 0;
            for (int i = 0; i < 60; i++) {
                outage += admitted(both.get(i % 2)) ? 1 : 0;
            }
            // Each had at most floor(R / 2) left of what Redis last reported (R ≤ 21): 10 each, where a
            // full share would have been 20 each.
            assertThat(outage).isLessThanOrEqualTo(20);

            redis.thaw();
            // Until each has a Redis decision again (its first one charges Redis), then the rest of the day.
            long after = 0;
            long started = System.nanoTime();
            while (redisDecisions(a) <= 10 || redisDecisions(b) <= 10) {
                assertThat(System.nanoTime() - started).isLessThan(Duration.ofSeconds(20).toNanos());
                for (RunningGateway gateway : both) {
                    after += admitted(gateway) ? 1 : 0;
                }
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> charges(a, "charged") + charges(a, "failed") >= 1
                    && charges(b, "charged") + charges(b, "failed") >= 1);
            for (int i = 0; i < 60; i++) {
                after += admitted(both.get(i % 2)) ? 1 : 0;
            }
            long day = admitted + outage + after;
            LoggerFactory.getLogger("measured").info("[multi-limit outage] day quota {} on {} gateways: {} before, {} during,"
                    + " {} after the outage, {} in all; charges taken {}, failed {}", QUOTA, INSTANCES, admitted, outage,
                    after, day, charges(a, "charged") + charges(b, "charged"), charges(a, "failed") + charges(b, "failed"));
            assertThat(charges(a, "charged") + charges(b, "charged")).as("charges taken").isPositive();
            assertThat(day).as("20 before, %d during, %d after the outage", outage, after)
                    .isLessThanOrEqualTo(QUOTA + INSTANCES);
        }
    }
}
