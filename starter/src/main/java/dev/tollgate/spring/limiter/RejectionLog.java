package dev.tollgate.spring.limiter;

import dev.tollgate.core.LogText;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.spring.logging.LogThrottle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs rejections at a bounded rate: under an attack a gateway rejects thousands of requests a
 * second, and one log line each would bury everything else. Lines are let through by a
 * {@link LogThrottle}. Never logs the API key. The tenant is escaped ({@link LogText}): with
 * {@code source: static} it is the key a client sent, any text at all.
 */
public final class RejectionLog {

    private static final Logger log = LoggerFactory.getLogger(RejectionLog.class);

    /** Longer ids are cut in the log line (the admin API's ids are at most 128 characters). */
    private static final int MAX_ID_CHARS = 200;

    private final LogThrottle throttle;

    /** @param perSecond lines allowed per second; 0 logs nothing */
    public RejectionLog(double perSecond, MonotonicClock clock) {
        this.throttle = new LogThrottle("rejection-log", perSecond, clock);
    }

    void rejected(String tenant, String route, long retryAfterSeconds, String source) {
        record("Rejected tenant '{}' on route '{}': retry in {} s (decided by {}){}", tenant, route,
                retryAfterSeconds, source);
    }

    void shadowRejected(String tenant, String route, String source) {
        record("Shadow rule would reject tenant '{}' on route '{}' (decided by {}){}", tenant, route, source, null);
    }

    private void record(String format, String tenant, String route, Object third, Object fourth) {
        if (!log.isInfoEnabled()) {
            return;
        }
        String tail = throttle.admit();
        if (tail == null) {
            return;
        }
        String safeTenant = LogText.escape(tenant, MAX_ID_CHARS);
        String safeRoute = LogText.escape(route, MAX_ID_CHARS);
        if (fourth == null) {
            log.info(format, safeTenant, safeRoute, third, tail);
        } else {
            log.info(format, safeTenant, safeRoute, third, fourth, tail);
        }
    }

    /** Lines left out since the last one logged. */
    long suppressed() {
        return throttle.suppressed();
    }
}
