package dev.tollgate.spring.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.ManualClock;
import dev.tollgate.spring.settings.RedisGuardProperties.CircuitBreakerProperties;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Redis breaker as the gateway builds it, on a manual clock: it stays open for exactly its wait on
 * the clock it is given (so never on the time of day, which a host may step), and each failed probe
 * round doubles the wait up to the longest.
 */
class RedisCircuitBreakerTest {

    private final ManualClock clock = new ManualClock(-7_000_000_000L); // System.nanoTime may be negative
    /** Opens on 2 calls, half failed; open 100 ms, then 200, 400, capped at 300 here; one probe. */
    private final CircuitBreaker breaker = RedisCircuitBreaker.of(RedisCircuitBreaker.registry(
            new CircuitBreakerProperties(50f, Duration.ofSeconds(1), 2, Duration.ofMillis(100),
                    Duration.ofMillis(300), 1), clock));

    private void fail() {
        assertThat(breaker.tryAcquirePermission()).isTrue();
        breaker.onError(1, TimeUnit.MILLISECONDS, new IllegalStateException("Redis timed out"));
    }

    /** Whether the breaker stays open until exactly {@code millis} have passed on the clock, then lets a probe through. */
    private void staysOpenFor(long millis) {
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        clock.advanceMillis(millis);
        assertThat(breaker.tryAcquirePermission()).as("still open at %d ms", millis).isFalse();
        clock.advance(Duration.ofNanos(1));
        assertThat(breaker.tryAcquirePermission()).as("a probe just after %d ms", millis).isTrue();
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
    }

    @Test
    void itIsOpenForItsWaitOnTheGivenClockAndEachFailedProbeDoublesTheWaitUpToTheLongest() {
        fail();
        fail();
        staysOpenFor(100);
        breaker.onError(1, TimeUnit.MILLISECONDS, new IllegalStateException("probe timed out"));
        staysOpenFor(200);
        breaker.onError(1, TimeUnit.MILLISECONDS, new IllegalStateException("probe timed out"));
        staysOpenFor(300);
        breaker.onSuccess(1, TimeUnit.MILLISECONDS);
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);

        // Closed again, the next opening starts from the first wait.
        clock.advance(Duration.ofSeconds(2)); // past the window, which held the probe's success
        fail();
        fail();
        staysOpenFor(100);
    }
}
