package dev.tollgate.spring.settings;

import dev.tollgate.redis.RedisBucketStore;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
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
 * @param batchWaitTurns    Turns of its event loop a batch of decisions may wait for more requests to join it, past
 *                          the turn it started in, as long as each turn brings some (0 to 16). A turn that brings
 *                          none sends the batch, so under light load a request waits one turn that finds nothing
 *                          to read (microseconds); at saturation one Redis call carries the decisions of a few
 *                          turns. 0 sends every batch at the end of the turn it started in.
 * @param connectRetryDelay Pause between attempts to open the first connection while Redis is unreachable at start.
 * @param startupWait       Longest a start waits for Redis to be connected (and Tollgate's scripts loaded) before
 *                          the gateway serves, so that its first requests are decided by Redis. A refused or failed
 *                          first attempt ends the wait at once; the gateway then starts on the local fallback and
 *                          keeps trying in the background. 0 does not wait.
 * @param reconnectMaxDelay Longest pause between attempts to reconnect after an outage (the pause grows
 *                          exponentially up to this).
 * @param circuitBreaker    When to stop calling Redis, and when to try again.
 */
@ConfigurationProperties("tollgate.redis")
@Validated
public record RedisGuardProperties(
        @DefaultValue("5ms") @DurationMin(nanos = 1) Duration timeout,
        @DefaultValue("" + RedisBucketStore.DEFAULT_WAIT_TURNS) @Min(0) @Max(RedisBucketStore.MAX_WAIT_TURNS)
        int batchWaitTurns,
        @DefaultValue("1s") @DurationMin(nanos = 1) Duration connectRetryDelay,
        @DefaultValue("5s") @DurationMin(nanos = 0) Duration startupWait,
        @DefaultValue("1s") @DurationMin(nanos = 1) Duration reconnectMaxDelay,
        @DefaultValue @Valid CircuitBreakerProperties circuitBreaker) {

    /**
     * The breaker opens when, over the Redis calls of the last {@code slidingWindow} (at least
     * {@code minimumNumberOfCalls} of them), {@code failureRateThreshold} percent failed or timed out.
     * While open no call is made; after {@code firstWaitInOpenState} it lets
     * {@code permittedCallsInHalfOpenState} calls through, closes if they succeed, and else opens
     * again for twice as long, up to {@code waitInOpenState}.
     *
     * <p>Why a window of time rather than of the last n calls: a call carries the requests an event
     * loop read together, so a busy gateway makes many calls a second, and the last 20 of them span a
     * few milliseconds. One hiccup of Redis (a few ms waiting for a CPU) would fail them all and open
     * the breaker, at peak, with Redis healthy. Over a second of calls a hiccup weighs what it lasts;
     * a Redis that stops answering fails every call and opens the breaker within the window (sooner
     * when the gateway is quiet: the window then holds few calls). Each request meanwhile waits at
     * most the timeout.
     *
     * <p>Why the open state starts short and doubles: the breaker also opens on a stall of a few
     * hundred milliseconds (Redis starved of CPU, a slow fork for a snapshot, a network blip), and then
     * every request of this instance is decided by the local fallback for as long as it stays open,
     * well after Redis is back. A first opening of {@code firstWaitInOpenState} (100 ms) bounds that;
     * a Redis that is really gone fails the half-open probes and is probed less and less often, the
     * wait doubling each time up to {@code waitInOpenState} (1 s). Each probe round costs at most
     * {@code permittedCallsInHalfOpenState} requests the timeout each.
     *
     * @param failureRateThreshold          Percentage of failed or timed-out calls in the window that opens the breaker.
     * @param slidingWindow                 The span of most recent Redis calls the failure rate is computed over, in
     *                                      whole seconds.
     * @param minimumNumberOfCalls          Calls the window must hold before the breaker may open.
     * @param firstWaitInOpenState          How long the breaker stays open the first time it opens (after it was
     *                                      closed); never more than {@code waitInOpenState}.
     * @param waitInOpenState               The longest the breaker stays open before it probes Redis again: each
     *                                      time the probes fail it stays open twice as long as the time before,
     *                                      up to this.
     * @param permittedCallsInHalfOpenState Probe calls let through while half open; the breaker closes if they succeed.
     */
    public record CircuitBreakerProperties(
            @DefaultValue("50") @DecimalMin(value = "0", inclusive = false) @DecimalMax("100") float failureRateThreshold,
            @DefaultValue("1s") @DurationMin(seconds = 1) Duration slidingWindow,
            @DefaultValue("10") @Min(1) int minimumNumberOfCalls,
            @DefaultValue("100ms") @DurationMin(millis = 1) Duration firstWaitInOpenState,
            @DefaultValue("1s") @DurationMin(millis = 1) Duration waitInOpenState,
            @DefaultValue("5") @Min(1) int permittedCallsInHalfOpenState) {

        public CircuitBreakerProperties {
            if (slidingWindow != null && slidingWindow.toMillis() % 1000 != 0) {
                throw new InvalidSettingException("tollgate.redis.circuit-breaker.sliding-window",
                        String.valueOf(slidingWindow),
                        "tollgate.redis.circuit-breaker.sliding-window must be whole seconds, was " + slidingWindow);
            }
        }

        /**
         * How long the breaker stays open the {@code attempt}-th time in a row it opens (1 = it was
         * closed before): {@code firstWaitInOpenState × 2^(attempt − 1)}, capped at {@code waitInOpenState}.
         */
        public long openMillis(int attempt) {
            long longest = waitInOpenState.toMillis();
            long first = Math.min(firstWaitInOpenState.toMillis(), longest);
            int doublings = Math.max(0, attempt - 1);
            if (doublings >= Long.numberOfLeadingZeros(first) - 1) {
                return longest; // first × 2^doublings would not fit in a long
            }
            return Math.min(first << doublings, longest);
        }

        /** The window in seconds, as the breaker counts it. */
        public int slidingWindowSeconds() {
            return (int) Math.min(Integer.MAX_VALUE, slidingWindow.toSeconds());
        }
    }
}
