package dev.tollgate.redis;

/** Redis cannot be asked right now: no connection has been established yet. */
public final class RedisUnavailableException extends RuntimeException {

    public RedisUnavailableException(String message) {
        super(message, null, false, false); // thrown on the request path: no stack trace to fill
    }
}
