package dev.tollgate.redis;

/**
 * Decides whether a Redis call may be made at all, and hears how each call went: a circuit
 * breaker that judges Redis by its calls (one call may carry many requests' decisions, so a slow
 * call counts once, not once per request in it). Runs on the connection's I/O loop: keep it short.
 */
public interface CallGate {

    /** Lets every call through and ignores outcomes. */
    CallGate ALWAYS_OPEN = new CallGate() {
        @Override
        public boolean permit() {
            return true;
        }

        @Override
        public void succeeded(long nanos) {
        }

        @Override
        public void failed(long nanos, Throwable error) {
        }
    };

    /** Whether a call may be made now; a call permitted is always followed by one of the two below. */
    boolean permit();

    /** Redis answered a permitted call, {@code nanos} after it was written. */
    void succeeded(long nanos);

    /** A permitted call got no answer in time, or failed. */
    void failed(long nanos, Throwable error);
}
