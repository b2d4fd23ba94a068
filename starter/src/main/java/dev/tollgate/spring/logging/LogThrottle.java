package dev.tollgate.spring.logging;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.LocalBucketStore;
import dev.tollgate.core.MonotonicClock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decides which lines of a log that anyone can fill from outside (rejections, unparseable requests)
 * are written: a token bucket lets through {@code perSecond} lines a second with a burst of one
 * second's worth, and the next line let through says how many were left out meanwhile. Under an
 * attack one line per event would bury everything else in the log.
 */
public final class LogThrottle {

    private final LocalBucketStore lines;
    private final BucketKey key;
    private final BucketLimits limits;
    private final AtomicLong suppressed = new AtomicLong();

    /**
     * @param name      what the lines are about, naming the throttle's bucket
     * @param perSecond lines allowed per second; 0 lets none through
     */
    public LogThrottle(String name, double perSecond, MonotonicClock clock) {
        this.lines = new LocalBucketStore(clock);
        this.key = new BucketKey(name, "all");
        long ratePerMilli = Math.round(perSecond * 1000); // micro-tokens per ms
        this.limits = ratePerMilli <= 0 ? null : new BucketLimits(
                Math.max(BucketLimits.MICROS_PER_TOKEN, ratePerMilli * 1000), ratePerMilli, BucketLimits.MICROS_PER_TOKEN);
    }

    /**
     * Takes the next line's turn: null if it is left out, otherwise the text to end it with, empty
     * or saying how many lines were left out since the last one written.
     */
    public String admit() {
        if (limits == null) {
            return null;
        }
        if (!lines.acquire(key, limits).allowed()) {
            suppressed.incrementAndGet();
            return null;
        }
        long left = suppressed.getAndSet(0);
        return left == 0 ? "" : " (" + left + " similar lines left out)";
    }

    /** Lines left out since the last one let through. */
    public long suppressed() {
        return suppressed.get();
    }
}
