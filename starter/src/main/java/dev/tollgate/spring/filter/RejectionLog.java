package dev.tollgate.spring.filter;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.LocalBucketStore;
import dev.tollgate.core.MonotonicClock;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs rejections at a bounded rate: under an attack a gateway rejects thousands of requests a
 * second, and one log line each would bury everything else. Lines are let through by a token
 * bucket of our own (a burst of one second's worth), and the next line that passes says how many
 * were left out meanwhile. Never logs the API key.
 */
public final class RejectionLog {

    private static final Logger log = LoggerFactory.getLogger(RejectionLog.class);
    private static final BucketKey KEY = new BucketKey("rejection-log", "all");

    private final LocalBucketStore lines;
    private final BucketLimits limits;
    private final AtomicLong suppressed = new AtomicLong();

    /** @param perSecond lines allowed per second; 0 logs nothing */
    public RejectionLog(double perSecond, MonotonicClock clock) {
        this.lines = new LocalBucketStore(clock);
        long ratePerMilli = Math.round(perSecond * 1000); // micro-tokens per ms
        this.limits = ratePerMilli <= 0 ? null : new BucketLimits(
                Math.max(BucketLimits.MICROS_PER_TOKEN, ratePerMilli * 1000), ratePerMilli, BucketLimits.MICROS_PER_TOKEN);
    }

    void rejected(String tenant, String route, long retryAfterSeconds, String source) {
        record("Rejected tenant '{}' on route '{}': retry in {} s (decided by {}){}", tenant, route,
                retryAfterSeconds, source);
    }

    void shadowRejected(String tenant, String route, String source) {
        record("Shadow rule would reject tenant '{}' on route '{}' (decided by {}){}", tenant, route, source, null);
    }

    private void record(String format, String tenant, String route, Object third, Object fourth) {
        if (limits == null || !log.isInfoEnabled()) {
            return;
        }
        if (!lines.acquire(KEY, limits).allowed()) {
            suppressed.incrementAndGet();
            return;
        }
        long left = suppressed.getAndSet(0);
        String tail = left == 0 ? "" : " (" + left + " similar lines left out)";
        if (fourth == null) {
            log.info(format, tenant, route, third, tail);
        } else {
            log.info(format, tenant, route, third, fourth, tail);
        }
    }

    /** Lines left out since the last one logged. */
    long suppressed() {
        return suppressed.get();
    }
}
