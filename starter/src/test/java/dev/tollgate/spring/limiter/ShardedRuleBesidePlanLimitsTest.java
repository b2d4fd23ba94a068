package dev.tollgate.spring.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.core.ShardedBucketStore;
import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitKey;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.LocalMultiLimitStore;
import dev.tollgate.core.limits.Plan;
import dev.tollgate.core.limits.PlanBook;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.redis.ScriptCalls;
import dev.tollgate.testkit.RedisServer;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A tenant's sharded rule ({@code shards > 1}, a hot key's) beside plan limits: the request has
 * several limits, so it is decided on the multi-limit path, where limits have no shards: the rule is
 * one bucket of its whole capacity and rate in the tenant's slot, decided with the plan's limits in
 * one script call. Alone (a plan with no limits beside it) the same rule keeps its shards on the
 * single-bucket path.
 */
class ShardedRuleBesidePlanLimitsTest {

    private static final RateLimitRule SHARDED = new RateLimitRule(10, 0.001, 1, false, 4);
    private static final Limit DAY = new Limit("day", LimitScope.tenant(), new CalendarQuota(1_000, QuotaPeriod.DAY));

    @Test
    void aShardedRuleBesidePlanLimitsIsOneWholeBucketOnTheMultiLimitPath() {
        PlanBook book = PlanBook.of(RuleSet.of(RateLimitRule.of(100, 100), List.of(
                        new ScopedRule("hot", "orders", SHARDED), new ScopedRule("solo", "orders", SHARDED))),
                List.of(new Plan("metered", List.of(DAY)), new Plan("empty", List.of())),
                LayeredMap.of(Map.of("solo", "empty")), "metered");
        assertThat(book.limitsFor("solo", "orders").singleBucket()).as("alone: the single-bucket path, sharded")
                .isSameAs(SHARDED);
        assertThat(book.limitsFor("hot", "orders").onSingleBucketPath()).isFalse();
        assertThat(book.limitsFor("hot", "orders").limits()).extracting(a -> a.limit().allowance())
                .containsExactly(new TokenBucket(10, 0.001), DAY.allowance());

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
                        metrics, new RejectionLog(0, MonotonicClock.system()), DecisionListener.NONE,
                        MonotonicClock.system());
                int admitted = 0;
                LimitEnforcer.Verdict last = null;
                for (int i = 0; i < 15; i++) {
                    last = enforcer.enforce("hot", "orders").block();
                    assertThat(last.multiLimit()).isTrue();
                    admitted += last.admitted() ? 1 : 0;
                }
                // The whole capacity of 10, exactly: no shard holds a quarter of it, none is short of one.
                assertThat(admitted).isEqualTo(10);
                assertThat(metrics.count(DecisionSource.REDIS)).isEqualTo(15);
                assertThat(last.limits().rejectedBy()).extracting(LimitOutcome::limit).containsExactly(10L);
                assertThat(last.limits().outcomes().get(1).remaining()).as("rejected requests took no quota")
                        .isEqualTo(990);
                // One bucket state in the tenant's key, beside its total: no shard keys ({hot:i}).
                LimitKey rule = new LimitKey("hot", "orders", PlanBook.RULE_LIMIT_NAME);
                assertThat(connection.sync().keys("*")).containsExactly(MultiLimitScript.redisKey(rule));
                assertThat(connection.sync().hkeys(MultiLimitScript.redisKey(rule))).contains(MultiLimitScript.field(rule));
            } finally {
                client.shutdown();
            }
        }
    }
}
