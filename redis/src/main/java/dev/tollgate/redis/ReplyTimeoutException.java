package dev.tollgate.redis;

import java.util.concurrent.TimeoutException;

/** Redis did not answer a call within its deadline (see {@link ScriptCalls}). */
public final class ReplyTimeoutException extends TimeoutException {

    public ReplyTimeoutException(String message) {
        super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this; // raised on the request path, possibly many times a second: no stack trace to fill
    }
}
