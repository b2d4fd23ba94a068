package dev.tollgate.core.limits;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;

/**
 * One window of a calendar quota: the instants {@code [startMillis, endMillis)} (epoch milliseconds)
 * that count together. Times are epoch milliseconds because that is what the Redis scripts read
 * ({@code redis_now()}: {@code TIME}'s seconds × 1000 + its microseconds ÷ 1000, rounded down).
 *
 * <p>The windows of one period and zone cover the whole timeline without gap or overlap: each
 * window's end is the next one's start. They follow the zone's wall clock, with its rules as
 * {@link ZoneRules} (the JDK's tz database) states them:
 * <ul>
 *   <li><b>Day</b>: from the start of a local date to the start of the next one, where the start of a
 *       date is {@link LocalDate#atStartOfDay(ZoneId)}: local midnight, or the end of the gap when
 *       midnight is skipped, or its first occurrence when it is repeated. A day is therefore 24 h,
 *       but 23 h on the day clocks go forward and 25 h on the day they go back (in zones with a
 *       one-hour change).</li>
 *   <li><b>Month</b>: from the start (as for a day) of its first date to the start of the next month's
 *       first date: 28, 29, 30 or 31 days, give or take the hour of a change in the month.</li>
 *   <li><b>Hour</b> and <b>minute</b>: the instants whose local time, in the offset in force at that
 *       instant, falls in the same local hour (minute) <em>with the same offset</em>. So the windows are
 *       aligned to the local clock (in a zone at +05:30 an hour window starts at hh:30 UTC); when
 *       clocks go forward the skipped local hour has no window (the hour before is 1 h, the next
 *       starts at the change); when clocks go back, the repeated local hour is <em>two</em> windows,
 *       one per offset, each 1 h long. A change of 30 min (Australia/Lord_Howe) cuts an hour window
 *       short at the change instead.</li>
 * </ul>
 * In {@code UTC} (the default) every minute, hour and day has its nominal length.
 *
 * @param period      the quota's period
 * @param zone        the zone whose wall clock the windows follow
 * @param startMillis the window's first instant, epoch ms (always a whole second)
 * @param endMillis   the first instant after it (the next window's start), epoch ms
 */
public record CalendarWindow(QuotaPeriod period, ZoneId zone, long startMillis, long endMillis) {

    public CalendarWindow {
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(zone, "zone");
        if (endMillis <= startMillis) {
            throw new IllegalArgumentException("a window ends after it starts: [" + startMillis + ", " + endMillis + ")");
        }
    }

    /** The window of {@code period} in {@code zone} that holds the instant {@code epochMillis}. */
    public static CalendarWindow containing(QuotaPeriod period, ZoneId zone, long epochMillis) {
        Instant instant = Instant.ofEpochMilli(epochMillis);
        ZoneRules rules = zone.getRules();
        return switch (period) {
            case MINUTE -> onLocalClock(period, zone, rules, instant, ChronoUnit.MINUTES);
            case HOUR -> onLocalClock(period, zone, rules, instant, ChronoUnit.HOURS);
            case DAY, MONTH -> ofDates(period, zone, instant);
        };
    }

    /** The window that follows this one. */
    public CalendarWindow next() {
        return containing(period, zone, endMillis);
    }

    /** The window before this one. */
    public CalendarWindow previous() {
        return containing(period, zone, startMillis - 1);
    }

    /** Whether the instant {@code epochMillis} lies in this window. */
    public boolean contains(long epochMillis) {
        return epochMillis >= startMillis && epochMillis < endMillis;
    }

    public long lengthMillis() {
        return endMillis - startMillis;
    }

    /**
     * The window's start in epoch seconds: short, and distinct for every window of one period and
     * zone (windows do not overlap), so a Redis key or field can carry it to say which window a count
     * belongs to. Later windows have larger ids.
     */
    public long id() {
        return Math.floorDiv(startMillis, 1000L);
    }

    /** Milliseconds from {@code epochMillis} to this window's end (what a quota's reset is). */
    public long millisToEnd(long epochMillis) {
        return endMillis - epochMillis;
    }

    /*
     * Minute and hour: the window is keyed by (local time truncated to the unit, offset in force).
     * Within one stretch of constant offset the local clock runs with the instants, so the window is
     * the part of that stretch whose local time lies in [truncated, truncated + unit).
     */
    private static CalendarWindow onLocalClock(QuotaPeriod period, ZoneId zone, ZoneRules rules, Instant instant,
                                               ChronoUnit unit) {
        ZoneOffset offset = rules.getOffset(instant);
        LocalDateTime local = LocalDateTime.ofInstant(instant, offset).truncatedTo(unit);
        Instant start = local.toInstant(offset);
        // The stretch of this offset may have begun after `start` (the local unit began under the
        // old offset): then the window begins where the stretch does, at the last change <= instant.
        for (ZoneOffsetTransition change = rules.nextTransition(start);
             change != null && !change.getInstant().isAfter(instant);
             change = rules.nextTransition(change.getInstant())) {
            start = change.getInstant();
        }
        Instant end = local.plus(1, unit).toInstant(offset);
        ZoneOffsetTransition change = rules.nextTransition(instant);
        if (change != null && change.getInstant().isBefore(end)) {
            end = change.getInstant(); // the offset changes before the local unit ends
        }
        return new CalendarWindow(period, zone, start.toEpochMilli(), end.toEpochMilli());
    }

    /*
     * Day and month: the window runs from the start of one date (a month's first) to the start of the
     * next. The local date of the instant is the usual answer; when the clock goes back across
     * midnight an instant can show the previous date after the next one has started, so the date is
     * corrected against the starts themselves, which only move forward.
     */
    private static CalendarWindow ofDates(QuotaPeriod period, ZoneId zone, Instant instant) {
        LocalDate date = LocalDate.ofInstant(instant, zone);
        if (period == QuotaPeriod.MONTH) {
            date = date.withDayOfMonth(1);
        }
        while (startOf(date, zone).isAfter(instant)) {
            date = step(period, date, -1);
        }
        while (!startOf(step(period, date, 1), zone).isAfter(instant)) {
            date = step(period, date, 1);
        }
        return new CalendarWindow(period, zone, startOf(date, zone).toEpochMilli(),
                startOf(step(period, date, 1), zone).toEpochMilli());
    }

    private static LocalDate step(QuotaPeriod period, LocalDate date, int by) {
        return period == QuotaPeriod.MONTH ? date.plusMonths(by) : date.plusDays(by);
    }

    private static Instant startOf(LocalDate date, ZoneId zone) {
        return date.atStartOfDay(zone).toInstant();
    }
}
