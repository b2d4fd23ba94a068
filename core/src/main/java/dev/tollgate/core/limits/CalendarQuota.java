package dev.tollgate.core.limits;

import dev.tollgate.core.InvalidRuleException;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * At most {@code quota} (in units of cost) per calendar {@code period}, counted in the windows
 * {@link CalendarWindow} defines in {@code zone}; the count starts again from 0 at each window's start.
 * Unlike a token bucket refilled at {@code quota / period}, a quota spent early in its window stays
 * spent until the window ends.
 *
 * @param quota  1 to {@value #MAX_QUOTA}
 * @param period minute, hour, day or month
 * @param zone   the zone whose calendar the windows follow; UTC unless configured
 */
public record CalendarQuota(long quota, QuotaPeriod period, ZoneId zone) implements Allowance {

    /** Largest quota: far below 2<sup>53</sup>, so counts stay exact in Lua's doubles even with a cost added. */
    public static final long MAX_QUOTA = 1_000_000_000_000L;

    public CalendarQuota {
        if (quota < 1 || quota > MAX_QUOTA) {
            throw new InvalidRuleException("quota", "must be between 1 and " + MAX_QUOTA + ", was " + quota);
        }
        if (period == null) {
            throw new InvalidRuleException("period", "is required: one of minute, hour, day, month");
        }
        if (zone == null) {
            throw new InvalidRuleException("zone", "must be a zone id such as UTC or Europe/Berlin, was null");
        }
    }

    /** A quota counted in UTC. */
    public CalendarQuota(long quota, QuotaPeriod period) {
        this(quota, period, ZoneOffset.UTC);
    }

    @Override
    public long maxCost() {
        return quota;
    }

    /** The window of this quota that holds {@code epochMillis}. */
    public CalendarWindow windowAt(long epochMillis) {
        return CalendarWindow.containing(period, zone, epochMillis);
    }

    /**
     * The zone written {@code value} in configuration: a region id ({@code Europe/Berlin}), {@code UTC}
     * or an offset ({@code +05:30}); UTC when {@code null} (the field is optional).
     *
     * @throws InvalidRuleException on field {@code zone}, saying what is accepted
     */
    public static ZoneId parseZone(String value) {
        if (value == null) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(value);
        } catch (DateTimeException e) {
            throw new InvalidRuleException("zone", "must be a region id such as Europe/Berlin, UTC, "
                    + "or an offset such as +05:30, was " + LimitText.quote(value));
        }
    }
}
