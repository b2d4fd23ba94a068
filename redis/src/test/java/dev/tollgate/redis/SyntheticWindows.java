package dev.tollgate.redis;

import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.CalendarWindow;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.ReferenceLimitEvaluator.QuotaWindows;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Windows of 20 to 100 ms of random lengths (a different sequence per period), tiling the timeline
 * from a minute before the test to an hour after: Redis's clock cannot be set, so quotas are driven
 * over windows short enough to cross many in a test. The script is generic over the tables it is
 * sent, and the reference counts in the same windows.
 */
final class SyntheticWindows implements QuotaWindows {

    private final long[][] boundaries = new long[QuotaPeriod.values().length][];

    SyntheticWindows(long randomStart) {
        long origin = System.currentTimeMillis() - 60_000;
        long until = origin + 3_660_000;
        for (QuotaPeriod period : QuotaPeriod.values()) {
            SplittableRandom random = new SplittableRandom(randomStart * 31 + period.ordinal());
            long[] bounds = new long[(int) ((until - origin) / 20) + 2];
            int n = 0;
            for (long t = origin; t <= until; t += 20 + random.nextInt(81)) {
                bounds[n++] = t;
            }
            boundaries[period.ordinal()] = Arrays.copyOf(bounds, n);
        }
    }

    @Override
    public CalendarWindow windowAt(CalendarQuota quota, long epochMillis) {
        long[] bounds = boundaries[quota.period().ordinal()];
        int i = Arrays.binarySearch(bounds, epochMillis);
        int start = i >= 0 ? i : -i - 2;
        if (start < 0 || start + 1 >= bounds.length) {
            throw new IllegalArgumentException("no synthetic window holds " + epochMillis);
        }
        return new CalendarWindow(quota.period(), quota.zone(), bounds[start], bounds[start + 1]);
    }
}
