package dev.tollgate.core.limits;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * How a script without a time-zone database finds a quota's window on its own clock (Redis's
 * {@code TIME}): the reference for the Lua side, in Java.
 *
 * <ul>
 *   <li>In a zone of fixed offset (UTC, {@code +05:30}), minute, hour and day windows are plain
 *       arithmetic on the clock: {@link #fixedOffsetStart}.</li>
 *   <li>Otherwise (months, zones with clock changes) the gateway sends the window boundaries around
 *       its own clock ({@link #boundariesAround}: the previous, current and next windows), and the
 *       script picks the window that holds its {@code now} ({@link #pick}). A {@code now} outside the
 *       table (the two clocks a window apart) is an answer of its own: the gateway asks again with a
 *       table around that time, rather than anyone guessing a window.</li>
 * </ul>
 */
public final class WindowTable {

    private WindowTable() {
    }

    /**
     * Redis's {@code TIME} reply (seconds, microseconds) as the epoch milliseconds every window and
     * bucket is computed on, rounded down: what the scripts' {@code redis_now()} computes.
     */
    public static long redisMillis(long seconds, long micros) {
        return seconds * 1000L + Math.floorDiv(micros, 1000L);
    }

    /**
     * Whether {@link #fixedOffsetStart} gives the windows of {@code period} in {@code zone}: a zone
     * that never changes its offset, and a period of fixed length.
     */
    public static boolean isArithmetic(QuotaPeriod period, ZoneId zone) {
        return period != QuotaPeriod.MONTH && zone.getRules().isFixedOffset();
    }

    /**
     * The start (epoch ms) of the window holding {@code epochMillis} in a zone of fixed offset
     * {@code offsetSeconds}: {@code floor((t + offset) / unit) × unit − offset}. The window ends one
     * unit later. Only for {@link #isArithmetic} periods and zones.
     */
    public static long fixedOffsetStart(QuotaPeriod period, int offsetSeconds, long epochMillis) {
        long unit = period.fixedMillis();
        long offset = offsetSeconds * 1000L;
        return Math.floorDiv(epochMillis + offset, unit) * unit - offset;
    }

    /** The offset of a fixed-offset zone, in seconds (for {@link #fixedOffsetStart}). */
    public static int fixedOffsetSeconds(ZoneId zone) {
        if (!zone.getRules().isFixedOffset()) {
            throw new IllegalArgumentException(zone + " changes its offset");
        }
        ZoneOffset offset = zone.getRules().getOffset(Instant.EPOCH);
        return offset.getTotalSeconds();
    }

    /**
     * Four boundaries, epoch ms: the start of the window before the one holding {@code epochMillis},
     * that window's start, the next one's start and the next one's end. Three windows, so that a
     * script whose clock is up to a window behind or ahead still finds its own.
     */
    public static long[] boundariesAround(QuotaPeriod period, ZoneId zone, long epochMillis) {
        CalendarWindow current = CalendarWindow.containing(period, zone, epochMillis);
        CalendarWindow next = current.next();
        return new long[] {current.previous().startMillis(), current.startMillis(), next.startMillis(),
                next.endMillis()};
    }

    /**
     * Index {@code i} such that {@code boundaries[i] <= now < boundaries[i + 1]}: the window
     * {@code [boundaries[i], boundaries[i + 1])} holds {@code now}; -1 if none does.
     */
    public static int pick(long[] boundaries, long now) {
        for (int i = 0; i + 1 < boundaries.length; i++) {
            if (boundaries[i] <= now && now < boundaries[i + 1]) {
                return i;
            }
        }
        return -1;
    }
}
