package dev.tollgate.spring.limiter;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.MonotonicInstantClock;
import dev.tollgate.spring.settings.RedisGuardProperties.CircuitBreakerProperties;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;

/**
 * The breaker that judges Redis by its calls ({@link CircuitBreakerGate}), built from
 * {@code tollgate.redis.circuit-breaker.*}: a time-based window, and an open state that starts at
 * {@code first-wait-in-open-state} and doubles up to {@code wait-in-open-state}.
 *
 * <p>Its waits and its window are timed on a {@link MonotonicClock}. Resilience4j's own default is
 * the time of day, on which a clock stepped back by an hour would keep the breaker open, and every
 * request on the local fallback, for that hour.
 */
public final class RedisCircuitBreaker {

    /** The breaker's name, in its metrics' {@code name} tag. */
    public static final String NAME = "redis";

    private RedisCircuitBreaker() {
    }

    /** A breaker in a registry of its own (metrics bind to the registry). */
    public static CircuitBreakerRegistry registry(CircuitBreakerProperties settings, MonotonicClock clock) {
        CircuitBreakerConfig config = CircuitBreakerConfig.custom()
                .failureRateThreshold(settings.failureRateThreshold())
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.TIME_BASED)
                .slidingWindowSize(settings.slidingWindowSeconds())
                .minimumNumberOfCalls(settings.minimumNumberOfCalls())
                .waitIntervalFunctionInOpenState(settings::openMillis)
                .permittedNumberOfCallsInHalfOpenState(settings.permittedCallsInHalfOpenState())
                .clock(new MonotonicInstantClock(clock))
                .build();
        CircuitBreakerRegistry registry = CircuitBreakerRegistry.of(config);
        registry.circuitBreaker(NAME);
        return registry;
    }

    /** The breaker of a registry made by {@link #registry}. */
    public static CircuitBreaker of(CircuitBreakerRegistry registry) {
        return registry.circuitBreaker(NAME);
    }
}
