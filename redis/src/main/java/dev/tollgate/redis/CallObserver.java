package dev.tollgate.redis;

/**
 * Told the outcome of every Redis call {@link ScriptCalls} makes (one call may carry many requests'
 * decisions): for latency metrics and health. Runs on the connection's I/O loop: keep it short.
 */
public interface CallObserver {

    /** Does nothing. */
    CallObserver NONE = new CallObserver() {
    };

    /** Redis answered, {@code nanos} after the call was written. */
    default void replied(long nanos) {
    }

    /** Redis did not answer within the deadline. */
    default void timedOut() {
    }

    /** The call failed (connection lost, Redis error). */
    default void failed(Throwable error) {
    }
}
