package dev.tollgate.spring.health;

import dev.tollgate.redis.RedisConnector;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.spring.limiter.DecisionSource;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Reports whether decisions come from Redis ({@code UP}) or from the local fallback
 * ({@code DEGRADED}: still serving and still limiting, but each instance on its own share). Never
 * {@code DOWN}: a gateway that cannot reach Redis must keep receiving traffic, so this indicator is
 * not part of the liveness or readiness groups, and {@code DEGRADED} maps to HTTP 200.
 */
public final class RateLimiterHealthIndicator implements HealthIndicator {

    public static final Status DEGRADED = TollgateStatus.degraded(
            "Redis is slow or unreachable: each instance enforces its share of the limits locally");

    private final CircuitBreaker breaker;
    private final RedisConnector connector;
    private final LiveInstances instances;

    public RateLimiterHealthIndicator(CircuitBreaker breaker, RedisConnector connector, LiveInstances instances) {
        this.breaker = breaker;
        this.connector = connector;
        this.instances = instances;
    }

    @Override
    public Health health() {
        CircuitBreaker.State state = breaker.getState();
        LiveInstances.Count count = instances.current();
        boolean redisPath = connector.isConnected() && state == CircuitBreaker.State.CLOSED;
        return Health.status(redisPath ? Status.UP : DEGRADED)
                .withDetail("mode", redisPath ? DecisionSource.REDIS.tag() : DecisionSource.LOCAL_FALLBACK.tag())
                .withDetail("redisConnected", connector.isConnected())
                .withDetail("circuitBreaker", state.name())
                .withDetail("liveInstances", count.instances())
                .withDetail("liveInstancesSource", count.source())
                .build();
    }
}
