package dev.tollgate.spring.edge;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.LocalBucketStore;
import dev.tollgate.core.LogText;
import dev.tollgate.core.MonotonicClock;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs requests the HTTP codec could not parse, at INFO and at a bounded rate: anyone can send
 * garbage as fast as a connection allows, and one line each would bury everything else. Lines are let
 * through by a token bucket (a burst of one second's worth); the next line that passes says how many
 * were left out. A line names the client's address and the parser's reason, escaped and cut short
 * (the reason may quote the request's own bytes, control characters included), never the request's
 * headers: they may hold an API key.
 */
public final class MalformedRequestLog {

    private static final Logger log = LoggerFactory.getLogger(MalformedRequestLog.class);
    private static final BucketKey KEY = new BucketKey("malformed-request-log", "all");
    private static final int MAX_REASON_CHARS = 160;

    private final LocalBucketStore lines;
    private final BucketLimits limits;
    private final AtomicLong suppressed = new AtomicLong();

    /** @param perSecond lines allowed per second; 0 logs nothing */
    public MalformedRequestLog(double perSecond, MonotonicClock clock) {
        this.lines = new LocalBucketStore(clock);
        long ratePerMilli = Math.round(perSecond * 1000); // micro-tokens per ms
        this.limits = ratePerMilli <= 0 ? null : new BucketLimits(
                Math.max(BucketLimits.MICROS_PER_TOKEN, ratePerMilli * 1000), ratePerMilli, BucketLimits.MICROS_PER_TOKEN);
    }

    /** A request whose {@code part} ("head" or "body") could not be parsed, for {@code reason}. */
    void malformed(SocketAddress client, String part, Throwable reason) {
        if (limits == null || !log.isInfoEnabled()) {
            return;
        }
        if (!lines.acquire(KEY, limits).allowed()) {
            suppressed.incrementAndGet();
            return;
        }
        long left = suppressed.getAndSet(0);
        String tail = left == 0 ? "" : " (" + left + " similar lines left out)";
        String why = reason.getMessage() == null ? reason.getClass().getSimpleName() : reason.getMessage();
        log.info("Refused a request from {} whose {} could not be parsed: {}{}", client, part,
                LogText.escape(why, MAX_REASON_CHARS), tail);
    }

    /** Lines left out since the last one logged. */
    long suppressed() {
        return suppressed.get();
    }
}
