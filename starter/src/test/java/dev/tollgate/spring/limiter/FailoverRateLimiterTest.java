package dev.tollgate.spring.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketCharges;
import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketRequest;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.LocalBucketStore;
import dev.tollgate.core.ShardedBucketStore;
import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.ManualClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.redis.RedisUnavailableException;
import dev.tollgate.testkit.RedisServer;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The switches between Redis and the local fallback, on a real Redis: what Redis admitted is also
 * spent from this instance's local share, so the switch to the fallback hands out no fresh local
 * burst; and what the fallback admitted is charged to Redis's bucket when Redis answers again, so
 * that Redis does not add its own untouched burst on top.
 */
class FailoverRateLimiterTest {

    private static final int INSTANCES = 3;
    /** Burst 30, refill too slow to matter: each instance's share is a burst of 10. */
    private static final RateLimitRule RULE = RateLimitRule.of(30, 0.001);

    private RedisServer redis;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private CircuitBreaker breaker;
    private FailoverRateLimiter limiter;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        client = RedisClient.create(redis.uri());
        connection = client.connect();
        breaker = CircuitBreaker.ofDefaults("redis");
        limiter = new FailoverRateLimiter(new ShardedBucketStore(RedisBucketStore.on(connection), true),
                RedisTokenLeaseSource.on(connection), new LocalFallbackLimiter(INSTANCES, new ManualClock()), breaker,
                new DecisionMetrics(new SimpleMeterRegistry()));
    }

    @AfterEach
    void stop() {
        connection.close();
        client.shutdown();
        redis.close();
    }

    private int admitted(BucketKey key, int requests, DecisionSource expected) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            SourcedDecision d = limiter.decide(new BucketRequest(key, RULE.limits(), RULE.shards()))
                    .toCompletableFuture().join();
            assertThat(d.source()).isEqualTo(expected);
            if (d.decision().allowed()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void afterTheSwitchOnlyWhatIsLeftOfThisInstancesShareIsAdmitted() {
        BucketKey key = new BucketKey("tenant", "route");
        assertThat(admitted(key, 4, DecisionSource.REDIS)).isEqualTo(4);

        breaker.transitionToForcedOpenState(); // Redis is now out of the picture
        // 10 is this instance's share of the burst; Redis admitted 4 of them here.
        assertThat(admitted(key, 20, DecisionSource.LOCAL_FALLBACK)).isEqualTo(6);
    }

    @Test
    void aTenantThatHadUsedItsShareThroughRedisGetsNoFreshBurstAtTheSwitch() {
        BucketKey key = new BucketKey("busy", "route");
        assertThat(admitted(key, 40, DecisionSource.REDIS)).isEqualTo(30);

        breaker.transitionToForcedOpenState();
        assertThat(admitted(key, 20, DecisionSource.LOCAL_FALLBACK)).isZero();
    }

    @Test
    void whatTheFallbackAdmittedIsChargedToRedisWhenItAnswersAgain() {
        BucketKey key = new BucketKey("returning", "route");
        breaker.transitionToForcedOpenState();
        assertThat(admitted(key, 20, DecisionSource.LOCAL_FALLBACK)).isEqualTo(10); // this instance's share

        breaker.transitionToClosedState();
        // Redis's bucket (30) was never touched; the first decision there charges it with the 10
        // admitted meanwhile, so Redis admits 20 in all, not 30.
        assertThat(admitted(key, 40, DecisionSource.REDIS)).isEqualTo(20);
        // Less than one token left (in micro-tokens): the bucket is exactly spent, by 20 + the charge.
        assertThat(Long.parseLong(redis.command("HGET", "rl:{returning}:route", "tokens"))).isLessThan(1_000_000);
    }

    @Test
    void aChargeThatFailsIsCountedNotLost() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ManualClock clock = new ManualClock();
        CircuitBreaker local = CircuitBreaker.ofDefaults("charges");
        BucketCharges failing = (key, limits, micros) ->
                CompletableFuture.failedFuture(new RedisUnavailableException("gone again"));
        FailoverRateLimiter failover = new FailoverRateLimiter(
                new ShardedBucketStore(new LocalBucketStore(clock), true), failing,
                new LocalFallbackLimiter(INSTANCES, clock), local, new DecisionMetrics(meters));
        BucketRequest request = new BucketRequest(new BucketKey("charged", "route"), RULE.limits(), 1);

        local.transitionToForcedOpenState();
        failover.decide(request).toCompletableFuture().join(); // admitted by the fallback: owed
        local.transitionToClosedState();
        failover.decide(request).toCompletableFuture().join(); // the store answers: the charge is made, and fails

        assertThat(meters.get("tollgate.fallback.charges").tag("outcome", "failed").counter().count()).isEqualTo(1);
        assertThat(meters.get("tollgate.fallback.charges").tag("outcome", "charged").counter().count()).isZero();
    }

    @Test
    void afterTheFallbackNoLeaseIsTakenBeforeRedisIsChargedWithWhatTheInstancesAdmittedAlone() {
        // Three instances whose keys are all hot (a lease of up to half the bucket at once).
        List<FailoverRateLimiter> instances = new ArrayList<>();
        List<CircuitBreaker> breakers = new ArrayList<>();
        List<LeasingBucketStore> leasing = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            LeasingBucketStore leases = new LeasingBucketStore(RedisBucketStore.on(connection),
                    RedisTokenLeaseSource.on(connection), new LeasePolicy(0, 60_000, 50, 0.5, 600_000), new ManualClock());
            CircuitBreaker own = CircuitBreaker.ofDefaults("redis-" + i);
            instances.add(new FailoverRateLimiter(new ShardedBucketStore(leases, true),
                    new ShardedBucketStore(RedisBucketStore.on(connection), true), RedisTokenLeaseSource.on(connection),
                    new LocalFallbackLimiter(INSTANCES, new ManualClock()), own, new DecisionMetrics(new SimpleMeterRegistry())));
            breakers.add(own);
            leasing.add(leases);
        }
        BucketKey key = new BucketKey("outage", "route");
        BucketRequest request = new BucketRequest(key, RULE.limits(), RULE.shards());
        int admitted = 0;
        for (int i = 0; i < INSTANCES; i++) {
            breakers.get(i).transitionToForcedOpenState();
            for (int r = 0; r < 20; r++) {
                admitted += instances.get(i).decide(request).toCompletableFuture().join().decision().allowed() ? 1 : 0;
            }
            breakers.get(i).transitionToClosedState();
        }
        assertThat(admitted).as("each instance's share of the burst of 30").isEqualTo(30);

        // Redis back, its bucket untouched (30). A lease taken first (15 tokens) would be admitted on
        // top of the 30 the charges then empty the bucket for: 50 were, before leases waited.
        for (int r = 0; r < 40; r++) {
            for (FailoverRateLimiter instance : instances) {
                admitted += instance.decide(request).toCompletableFuture().join().decision().allowed() ? 1 : 0;
            }
        }
        // The bucket's 30, plus at most one request per instance decided by Redis before its charge landed.
        assertThat(admitted).isLessThanOrEqualTo(30 + INSTANCES);
        for (LeasingBucketStore leases : leasing) {
            leases.close();
        }
    }
}
