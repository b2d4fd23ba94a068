package dev.tollgate.gateway.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How Tollgate protects itself from a slow or missing Redis ({@code tollgate.redis.*}).
 *
 * @param timeout           longest a request waits for its Redis decision before the local fallback
 *                          decides instead
 * @param connectRetryDelay pause between attempts to open the first connection when Redis is
 *                          unreachable at start
 * @param reconnectMaxDelay longest pause between Lettuce's attempts to reconnect after an outage
 *                          (it backs off exponentially up to this)
 * @param circuitBreaker    when to stop calling Redis and when to try again
 */
@ConfigurationProperties("tollgate.redis")
public record RedisGuardProperties(
        @DefaultValue("5ms") Duration timeout,
        @DefaultValue("1s") Duration connectRetryDelay,
        @DefaultValue("1s") Duration reconnectMaxDelay,
        @DefaultValue CircuitBreakerProperties circuitBreaker) {

    public RedisGuardProperties {
        requirePositive("tollgate.redis.timeout", timeout);
        requirePositive("tollgate.redis.connect-retry-delay", connectRetryDelay);
        requirePositive("tollgate.redis.reconnect-max-delay", reconnectMaxDelay);
    }

    static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
        }
    }

    /**
     * The breaker opens when, over the last {@code slidingWindowSize} Redis calls (and at least
     * {@code minimumNumberOfCalls}), {@code failureRateThreshold} percent failed or timed out. While
     * open no call is made; after {@code waitInOpenState} it lets {@code permittedCallsInHalfOpenState}
     * calls through, and closes if they succeed.
     */
    public record CircuitBreakerProperties(
            @DefaultValue("50") float failureRateThreshold,
            @DefaultValue("20") int slidingWindowSize,
            @DefaultValue("10") int minimumNumberOfCalls,
            @DefaultValue("1s") Duration waitInOpenState,
            @DefaultValue("5") int permittedCallsInHalfOpenState) {

        public CircuitBreakerProperties {
            String prefix = "tollgate.redis.circuit-breaker.";
            if (!(failureRateThreshold > 0 && failureRateThreshold <= 100)) {
                throw new IllegalArgumentException(prefix + "failure-rate-threshold must be in (0, 100], was "
                        + failureRateThreshold);
            }
            if (slidingWindowSize < 1) {
                throw new IllegalArgumentException(prefix + "sliding-window-size must be at least 1, was "
                        + slidingWindowSize);
            }
            if (minimumNumberOfCalls < 1) {
                throw new IllegalArgumentException(prefix + "minimum-number-of-calls must be at least 1, was "
                        + minimumNumberOfCalls);
            }
            if (permittedCallsInHalfOpenState < 1) {
                throw new IllegalArgumentException(prefix + "permitted-calls-in-half-open-state must be at least 1, was "
                        + permittedCallsInHalfOpenState);
            }
            requirePositive(prefix + "wait-in-open-state", waitInOpenState);
        }
    }
}
