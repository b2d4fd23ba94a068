package dev.tollgate.core.limits;

import dev.tollgate.core.InvalidRuleException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The calendar period a {@link CalendarQuota} counts in; see {@link CalendarWindow} for the exact windows. */
public enum QuotaPeriod {
    MINUTE, HOUR, DAY, MONTH;

    /**
     * The length of one window in a zone of fixed offset, in ms (minute, hour, day); what the Java
     * side and the script both count windows in.
     *
     * @throws IllegalArgumentException for {@link #MONTH}: months have no fixed length
     */
    public long fixedMillis() {
        return switch (this) {
            case MINUTE -> 60_000L;
            case HOUR -> 3_600_000L;
            case DAY -> 86_400_000L;
            case MONTH -> throw new IllegalArgumentException("months have no fixed length");
        };
    }

    /** The name written in configuration and the admin API: {@code minute}, {@code hour}, ... */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The period named {@code value} as written in configuration ({@code minute | hour | day | month},
     * in any case).
     *
     * @throws InvalidRuleException on field {@code period}, listing the allowed values
     */
    public static QuotaPeriod parse(String value) {
        if (value != null) {
            for (QuotaPeriod period : values()) {
                if (period.wireName().equalsIgnoreCase(value)) {
                    return period;
                }
            }
        }
        throw new InvalidRuleException("period", "must be one of "
                + Arrays.stream(values()).map(QuotaPeriod::wireName).collect(Collectors.joining(", "))
                + ", was " + LimitText.quote(value));
    }
}
