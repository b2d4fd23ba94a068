package dev.tollgate.spring.region;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.ShardedBucketStore;
import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.LimitPrecedence;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.LocalMultiLimitStore;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.RuleBookLimits;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.redis.ScriptCalls;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.FailoverRateLimiter;
import dev.tollgate.spring.limiter.LimitEnforcer;
import dev.tollgate.spring.limiter.MultiLimitLimiter;
import dev.tollgate.spring.limiter.RejectionLog;
import dev.tollgate.testkit.RedisServer;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rebalancer's demand, as {@link LimitEnforcer} reports it to a {@link DemandRecorder}: on both
 * paths, a request counts once for its (tenant, route), offered and, if it passed, admitted; on the
 * multi-limit path at the cost of its first per-route limit, 1 when it has only tenant-wide ones.
 */
class DemandRecorderTest {

    private static final Limit DAILY = new Limit("daily", LimitScope.tenant(), new CalendarQuota(2, QuotaPeriod.DAY));

    private static AppliedLimits multi(Limit... limits) {
        return new AppliedLimits(List.of(limits).stream()
                .map(l -> new LimitPrecedence.Applied(l, LimitPrecedence.Source.PLAN)).toList(), null);
    }

    @Test
    void everyDecisionOfEitherPathCountsOnceForItsTenantAndRoute() {
        LimitBook book = (tenant, route) -> switch (tenant) {
            case "plan" -> multi(new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(100, 0.001), 3, false),
                    DAILY.withCost(1));
            case "total" -> multi(DAILY);
            default -> RuleBookLimits.applied(RateLimitRule.of(1, 0.001));
        };
        DemandMeter meter = new DemandMeter(MonotonicClock.system());
        try (RedisServer redis = RedisServer.start()) {
            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                CircuitBreaker breaker = CircuitBreaker.ofDefaults("redis");
                DecisionMetrics metrics = new DecisionMetrics(new SimpleMeterRegistry());
                LimitEnforcer enforcer = new LimitEnforcer(book,
                        new FailoverRateLimiter(new ShardedBucketStore(RedisBucketStore.on(connection), true),
                                RedisTokenLeaseSource.on(connection), new LocalFallbackLimiter(1, MonotonicClock.system()),
                                breaker, metrics),
                        new MultiLimitLimiter(new MultiLimitScript(ScriptCalls.on(connection)),
                                new LocalMultiLimitStore(() -> 1, WallClock.system()), breaker, metrics),
                        metrics, new RejectionLog(0, MonotonicClock.system()), new DemandRecorder(meter),
                        MonotonicClock.system());
                for (int i = 0; i < 3; i++) {
                    enforcer.enforce("plan", "orders").block();
                    enforcer.enforce("total", "orders").block();
                    enforcer.enforce("single", "orders").block();
                }
            } finally {
                client.shutdown();
            }
        }
        DemandMeter.Window window = meter.drain();
        // Three requests each; the day quota of 2 (cost 1) admits two of them, the single bucket one.
        assertThat(window.demand().get(new RuleScope("plan", "orders"))).isEqualTo(new DemandMeter.Counts(9, 6));
        assertThat(window.demand().get(new RuleScope("total", "orders"))).isEqualTo(new DemandMeter.Counts(3, 2));
        assertThat(window.demand().get(new RuleScope("single", "orders"))).isEqualTo(new DemandMeter.Counts(3, 1));
    }
}
