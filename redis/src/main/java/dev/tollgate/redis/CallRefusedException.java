package dev.tollgate.redis;

/** The {@link CallGate} did not let a call through (the circuit breaker is open): Redis was not asked. */
public final class CallRefusedException extends RuntimeException {

    public CallRefusedException(String message) {
        super(message, null, false, false); // raised on the request path: no stack trace to fill
    }
}
