package dev.tollgate.spring.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
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
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.redis.ScriptCalls;
import dev.tollgate.spring.limiter.DecisionListener;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionOutcome;
import dev.tollgate.spring.limiter.DecisionSource;
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
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;

/**
 * {@link TollgateRateLimiter} (Spring Cloud Gateway's {@code RequestRateLimiter}) and the enforcer
 * behind it on each path, on a real Redis: a rule's single bucket answered as before, several limits
 * listed by name with {@code Retry-After} from the rejecting limit, shadow-only limits invisible, no
 * limit at all admitted without a decision.
 */
class TollgateRateLimiterLimitsTest {

    private static final Limit RATE = new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(5, 0.001));
    private static final Limit DAILY = new Limit("daily", LimitScope.tenant(), new CalendarQuota(1, QuotaPeriod.DAY));
    private static final Limit SHADOW = new Limit("trial", LimitScope.tenant(),
            new CalendarQuota(1, QuotaPeriod.DAY)).shadow(true);

    private static RedisServer redis;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static DecisionMetrics metrics;
    private static TollgateRateLimiter limiter;

    private static AppliedLimits multi(Limit... limits) {
        return new AppliedLimits(List.of(limits).stream()
                .map(l -> new LimitPrecedence.Applied(l, LimitPrecedence.Source.PLAN)).toList(), null);
    }

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        client = RedisClient.create(redis.uri());
        connection = client.connect();
        CircuitBreaker breaker = CircuitBreaker.ofDefaults("redis");
        metrics = new DecisionMetrics(new SimpleMeterRegistry());
        LimitBook book = (tenant, route) -> switch (tenant) {
            case "plan" -> multi(RATE, DAILY);
            case "observed" -> multi(SHADOW);
            case "free" -> multi();
            default -> RuleBookLimits.applied(RateLimitRule.of(2, 0.001));
        };
        FailoverRateLimiter single = new FailoverRateLimiter(new ShardedBucketStore(RedisBucketStore.on(connection), true),
                RedisTokenLeaseSource.on(connection), new LocalFallbackLimiter(1, MonotonicClock.system()), breaker,
                metrics);
        MultiLimitLimiter several = new MultiLimitLimiter(new MultiLimitScript(ScriptCalls.on(connection)),
                new LocalMultiLimitStore(() -> 1, WallClock.system()), breaker, metrics);
        LimitEnforcer enforcer = new LimitEnforcer(book, single, several, metrics,
                new RejectionLog(0, MonotonicClock.system()), DecisionListener.NONE, MonotonicClock.system());
        limiter = new TollgateRateLimiter(enforcer, new RateLimitHeaders(true, true));
    }

    @AfterAll
    static void stop() {
        connection.close();
        client.shutdown();
        redis.close();
    }

    private static RateLimiter.Response ask(String tenant) {
        return limiter.isAllowed("orders", tenant).block();
    }

    @Test
    void aRulesSingleBucketIsAnsweredAsBefore() {
        RateLimiter.Response response = ask("someone");
        assertThat(response.isAllowed()).isTrue();
        assertThat(response.getHeaders()).containsEntry("RateLimit-Policy", "\"orders\";q=2;w=2000")
                .containsEntry("X-RateLimit-Remaining", "1");
    }

    @Test
    void severalLimitsAreListedAndTheRejectingOneSetsRetryAfter() {
        RateLimiter.Response first = ask("plan");
        assertThat(first.isAllowed()).isTrue();
        assertThat(first.getHeaders()).containsEntry("RateLimit-Policy",
                "\"per-route\";q=5;w=5000, \"daily\";q=1;w=86400").containsEntry("X-RateLimit-Limit", "1")
                .containsEntry("X-RateLimit-Remaining", "0").doesNotContainKey("Retry-After");

        RateLimiter.Response second = ask("plan");
        assertThat(second.isAllowed()).isFalse();
        long retry = Long.parseLong(second.getHeaders().get("Retry-After"));
        assertThat(retry).isBetween(1L, 86_400L).isEqualTo(Long.parseLong(second.getHeaders().get("X-RateLimit-Reset")));
        assertThat(metrics.limitRejections("daily", false)).isEqualTo(1);
        assertThat(metrics.limitRejections("per-route", false)).isZero();
        assertThat(metrics.count(DecisionSource.REDIS, DecisionOutcome.REJECTED)).isEqualTo(1);
    }

    @Test
    void onlyShadowLimitsShowNothingAndNeverReject() {
        assertThat(ask("observed").isAllowed()).isTrue();
        RateLimiter.Response overShadow = ask("observed");
        assertThat(overShadow.isAllowed()).isTrue();
        assertThat(overShadow.getHeaders()).isEqualTo(Map.of());
        assertThat(metrics.limitRejections("trial", true)).isEqualTo(1);
    }

    @Test
    void noLimitAtAllIsAdmittedWithoutADecision() {
        double before = metrics.count(DecisionSource.REDIS);
        RateLimiter.Response response = ask("free");
        assertThat(response.isAllowed()).isTrue();
        assertThat(response.getHeaders()).isEmpty();
        assertThat(metrics.count(DecisionSource.REDIS)).isEqualTo(before);
    }
}
