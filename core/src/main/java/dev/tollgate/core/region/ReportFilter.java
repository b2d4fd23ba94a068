package dev.tollgate.core.region;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;

/**
 * Which buckets an instance publishes at the end of a window, so that the rebalancer learns of every
 * bucket that needs it without each instance writing a row per active bucket: a bucket is reported
 * if it is tracked (the rebalancer keeps shares for it) and had any demand, or if this instance saw it
 * near its region's limit — a rejection, or offered tokens per second of at least {@code nearLimit}
 * of the region's rate divided by the region's instance count.
 *
 * <p>An untracked bucket that is near its limit in the region as a whole is reported by at least one
 * of the region's instances when traffic is spread evenly; with uneven spreading, one instance above
 * its even part suffices. A bucket whose demand stays below that everywhere is never reported: its
 * default shares are enough wherever its traffic is.
 */
public final class ReportFilter {

    private final double nearLimit;

    public ReportFilter(double nearLimit) {
        if (!(nearLimit > 0) || nearLimit > 1) {
            throw new IllegalArgumentException("nearLimit must be in (0, 1], was " + nearLimit);
        }
        this.nearLimit = nearLimit;
    }

    /**
     * @param counts          the bucket's totals over the window
     * @param windowMillis    the window's length
     * @param tracked         whether the rebalancer keeps shares for the bucket
     * @param regionalRule    the rule as this region enforces it (scaled to its share)
     * @param regionInstances live instances in this region (at least 1)
     */
    public boolean worthReporting(DemandMeter.Counts counts, long windowMillis, boolean tracked,
                                  RateLimitRule regionalRule, int regionInstances) {
        if (counts.offeredTokens() <= 0) {
            return false;
        }
        if (tracked || counts.admittedTokens() < counts.offeredTokens()) {
            return true;
        }
        double regionalPerSecond = regionalRule.limits().refillMicrosPerMilli() * 1000d / BucketLimits.MICROS_PER_TOKEN;
        double offeredPerSecond = windowMillis <= 0 ? 0 : counts.offeredTokens() * 1000d / windowMillis;
        return offeredPerSecond >= nearLimit * regionalPerSecond / Math.max(1, regionInstances);
    }
}
