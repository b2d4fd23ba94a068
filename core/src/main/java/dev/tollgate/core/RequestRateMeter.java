package dev.tollgate.core;

/**
 * Requests per second seen for one key, over a sliding one-second window approximated by two fixed
 * windows (the previous window's count weighted by how much of it still overlaps). Not thread-safe:
 * its owner serialises calls.
 *
 * <p>Error bound: exact for a steady rate; when the rate changes, the estimate lags by at most one
 * window (1 s) and is off by at most the previous window's count.
 *
 * <p>Public so that the multi-limit path's leases ({@code dev.tollgate.core.limits.MultiLimitLeases})
 * call a key hot exactly as {@link LeasingBucketStore} does.
 */
public final class RequestRateMeter {

    public static final long WINDOW_MILLIS = 1000;

    private long windowStart;
    private long current;
    private long previous;

    public RequestRateMeter(long nowMillis) {
        this.windowStart = nowMillis;
    }

    public void record(long nowMillis) {
        roll(nowMillis);
        current++;
    }

    public double perSecond(long nowMillis) {
        roll(nowMillis);
        double overlap = 1d - (double) (nowMillis - windowStart) / WINDOW_MILLIS;
        return current + previous * overlap;
    }

    private void roll(long nowMillis) {
        long elapsed = nowMillis - windowStart;
        if (elapsed < WINDOW_MILLIS) {
            return;
        }
        previous = elapsed < 2 * WINDOW_MILLIS ? current : 0;
        current = 0;
        windowStart = nowMillis - elapsed % WINDOW_MILLIS;
    }
}
