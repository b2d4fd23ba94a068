package dev.tollgate.spring.filter;

import dev.tollgate.core.MonotonicClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs rejections at a bounded rate: under an attack a gateway rejects thousands of requests a
 * second, and one log line each would bury everything else. Lines are let through by a
 * {@link LogThrottle}. Never logs the API key.
 */
public final class RejectionLog {

    private static final Logger log = LoggerFactory.getLogger(RejectionLog.class);

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
        if (fourth == null) {
            log.info(format, tenant, route, third, tail);
        } else {
            log.info(format, tenant, route, third, fourth, tail);
        }
    }

    /** Lines left out since the last one logged. */
    long suppressed() {
        return throttle.suppressed();
    }
}
