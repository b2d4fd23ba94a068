package dev.tollgate.spring.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.LocalMultiLimitStore;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.ScriptCalls;
import dev.tollgate.testkit.RedisServer;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The multi-limit path's switch between Redis and the local fallback, on a real Redis: Redis decides
 * while it answers (all or nothing, one call), this instance's share of each limit once the breaker
 * is open or Redis is gone, and the Redis failure is counted.
 */
class MultiLimitLimiterTest {

    private static final int INSTANCES = 2;
    private static final Limit RATE = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(100, 0.001));
    /** 10 a day for the whole tenant: each instance's share while falling back is 5. */
    private static final Limit DAY = new Limit("day", LimitScope.tenant(), new CalendarQuota(10, QuotaPeriod.DAY));

    private RedisServer redis;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private CircuitBreaker breaker;
    private SimpleMeterRegistry registry;
    private MultiLimitLimiter limiter;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        client = RedisClient.create(redis.uri());
        client.setDefaultTimeout(Duration.ofSeconds(2));
        // Refused at once while disconnected, as Tollgate's own client does (no queue to wait in).
        client.setOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        connection = client.connect();
        breaker = CircuitBreaker.ofDefaults("redis");
        registry = new SimpleMeterRegistry();
        limiter = new MultiLimitLimiter(new MultiLimitScript(ScriptCalls.on(connection)),
                new LocalMultiLimitStore(() -> INSTANCES, WallClock.system()), breaker, new DecisionMetrics(registry));
    }

    @AfterEach
    void stop() {
        connection.close();
        client.shutdown();
        redis.close();
    }

    private int admitted(String tenant, int requests, DecisionSource expected) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            MultiLimitLimiter.Sourced d = limiter.decide(List.of(LimitCharge.of(tenant, "orders", RATE),
                    LimitCharge.of(tenant, "orders", DAY))).toCompletableFuture().join();
            assertThat(d.source()).isEqualTo(expected);
            admitted += d.decision().admitted() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void redisDecidesTheWholeLimitsWhileItAnswers() {
        assertThat(admitted("shop", 12, DecisionSource.REDIS)).isEqualTo(10);
        assertThat(connection.sync().hexists("rl:{shop}", "day")).isTrue();
    }

    @Test
    void anOpenBreakerDecidesOnThisInstancesShareWithoutCallingRedis() {
        breaker.transitionToForcedOpenState();
        assertThat(admitted("shop", 12, DecisionSource.LOCAL_FALLBACK)).isEqualTo(5);
        assertThat(connection.sync().exists("rl:{shop}")).isZero();
    }

    @Test
    void whenRedisIsGoneTheLocalShareDecidesAndTheFailureIsCounted() {
        assertThat(admitted("shop", 2, DecisionSource.REDIS)).isEqualTo(2);
        redis.close();

        assertThat(admitted("shop", 12, DecisionSource.LOCAL_FALLBACK))
                .as("the share carries on from Redis's last answer: 8 left, a half of it").isEqualTo(4);
        assertThat(registry.get("tollgate.redis.failures").counters().stream().mapToDouble(c -> c.count()).sum())
                .isEqualTo(12);
    }

    @Test
    void whenRedisAnswersAgainItIsChargedWithWhatTheLocalShareAdmitted() {
        breaker.transitionToForcedOpenState();
        assertThat(admitted("shop", 12, DecisionSource.LOCAL_FALLBACK)).isEqualTo(5);
        breaker.transitionToClosedState();

        assertThat(admitted("shop", 1, DecisionSource.REDIS)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> charges("charged") == 1);
        // The day: 5 alone + 1 + what Redis still admits = the quota of 10, not 5 + 10.
        assertThat(admitted("shop", 12, DecisionSource.REDIS)).isEqualTo(4);
        assertThat(charges("failed")).isZero();
    }

    private double charges(String outcome) {
        return registry.get("tollgate.fallback.charges").tag("outcome", outcome).counter().count();
    }
}
