package dev.tollgate.spring.limiter;

import dev.tollgate.redis.CallGate;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.concurrent.TimeUnit;

/** Resilience4j's circuit breaker as the gate of every Redis call: it judges Redis by its calls. */
public final class CircuitBreakerGate implements CallGate {

    private final CircuitBreaker breaker;

    public CircuitBreakerGate(CircuitBreaker breaker) {
        this.breaker = breaker;
    }

    @Override
    public boolean permit() {
        return breaker.tryAcquirePermission();
    }

    @Override
    public void succeeded(long nanos) {
        breaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(long nanos, Throwable error) {
        breaker.onError(nanos, TimeUnit.NANOSECONDS, error);
    }
}
