package dev.tollgate.spring.autoconfigure;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How Tollgate protects itself from a slow or missing Redis ({@code tollgate.redis.*}).
 *
 * @param timeout           Longest a request waits for its Redis decision before the local fallback decides instead.
 * @param connectRetryDelay Pause between attempts to open the first connection while Redis is unreachable at start.
 * @param reconnectMaxDelay Longest pause between attempts to reconnect after an outage (the pause grows
 *                          exponentially up to this).
 * @param circuitBreaker    When to stop calling Redis, and when to try again.
 */
@ConfigurationProperties("tollgate.redis")
@Validated
public record RedisGuardProperties(
        @DefaultValue("5ms") @DurationMin(nanos = 1) Duration timeout,
        @DefaultValue("1s") @DurationMin(nanos = 1) Duration connectRetryDelay,
        @DefaultValue("1s") @DurationMin(nanos = 1) Duration reconnectMaxDelay,
        @DefaultValue @Valid CircuitBreakerProperties circuitBreaker) {

    /**
     * The breaker opens when, over the last {@code slidingWindowSize} Redis calls (and at least
     * {@code minimumNumberOfCalls}), {@code failureRateThreshold} percent failed or timed out. While
     * open no call is made; after {@code waitInOpenState} it lets {@code permittedCallsInHalfOpenState}
     * calls through, and closes if they succeed.
     *
     * @param failureRateThreshold          Percentage of failed or timed-out calls in the window that opens the breaker.
     * @param slidingWindowSize             Number of most recent Redis calls the failure rate is computed over.
     * @param minimumNumberOfCalls          Calls the window must hold before the breaker may open.
     * @param waitInOpenState               How long the breaker stays open before it probes Redis again.
     * @param permittedCallsInHalfOpenState Probe calls let through while half open; the breaker closes if they succeed.
     */
    public record CircuitBreakerProperties(
            @DefaultValue("50") @DecimalMin(value = "0", inclusive = false) @DecimalMax("100") float failureRateThreshold,
            @DefaultValue("20") @Min(1) int slidingWindowSize,
            @DefaultValue("10") @Min(1) int minimumNumberOfCalls,
            @DefaultValue("1s") @DurationMin(nanos = 1) Duration waitInOpenState,
            @DefaultValue("5") @Min(1) int permittedCallsInHalfOpenState) {
    }
}
