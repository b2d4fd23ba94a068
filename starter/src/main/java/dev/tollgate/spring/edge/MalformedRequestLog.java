package dev.tollgate.spring.edge;

import dev.tollgate.core.LogText;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.spring.logging.LogThrottle;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs requests the HTTP codec could not parse, at INFO and at a bounded rate: anyone can send
 * garbage as fast as a connection allows, and one line each would bury everything else. Lines are let
 * through by a {@link LogThrottle}. A line names the client's address and the parser's reason, escaped and cut short
 * (the reason may quote the request's own bytes, control characters included), never the request's
 * headers: they may hold an API key.
 */
public final class MalformedRequestLog {

    private static final Logger log = LoggerFactory.getLogger(MalformedRequestLog.class);
    private static final int MAX_REASON_CHARS = 160;

    private final LogThrottle throttle;

    /** @param perSecond lines allowed per second; 0 logs nothing */
    public MalformedRequestLog(double perSecond, MonotonicClock clock) {
        this.throttle = new LogThrottle("malformed-request-log", perSecond, clock);
    }

    /** A request whose {@code part} ("head" or "body") could not be parsed, for {@code reason}. */
    void malformed(SocketAddress client, String part, Throwable reason) {
        if (!log.isInfoEnabled()) {
            return;
        }
        String tail = throttle.admit();
        if (tail == null) {
            return;
        }
        String why = reason.getMessage() == null ? reason.getClass().getSimpleName() : reason.getMessage();
        log.info("Refused a request from {} whose {} could not be parsed: {}{}", client, part,
                LogText.escape(why, MAX_REASON_CHARS), tail);
    }

    /** Lines left out since the last one logged. */
    long suppressed() {
        return throttle.suppressed();
    }
}
