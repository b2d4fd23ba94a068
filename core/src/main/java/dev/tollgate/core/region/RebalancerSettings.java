package dev.tollgate.core.region;

import dev.tollgate.core.RateLimitRule;

/**
 * How the rebalancer splits limits; validated when built, naming the bad value.
 *
 * @param defaults    the configured regions and their default shares (what every bucket gets until
 *                    the rebalancer has data for it)
 * @param minSharePpm the least share any region gets from the rebalancer, in millionths, so that a
 *                    quiet region can still serve a first burst; at least 1, and the regions' floors
 *                    together at most the whole limit
 * @param nearLimit   a bucket's shares move only once some region's smoothed demand reached this
 *                    fraction of what that region may admit ({@code R × its share}); in (0, 1]
 * @param smoothing   the weight of the newest window in each region's smoothed demand
 *                    (exponentially weighted: {@code d = smoothing × window + (1 − smoothing) × d}); in
 *                    (0, 1], 1 meaning no smoothing
 */
public record RebalancerSettings(RegionShares defaults, int minSharePpm, double nearLimit, double smoothing) {

    public RebalancerSettings {
        if (defaults == null) {
            throw new IllegalArgumentException("default region shares are required");
        }
        int regions = defaults.regions().size();
        if (minSharePpm < 1 || (long) minSharePpm * regions > RateLimitRule.WHOLE_SHARE_PPM) {
            throw new IllegalArgumentException("the minimum share must be greater than 0 and at most 1/" + regions
                    + " with " + regions + " regions " + defaults.regions() + ", was "
                    + minSharePpm / (double) RateLimitRule.WHOLE_SHARE_PPM);
        }
        if (!(nearLimit > 0) || nearLimit > 1) {
            throw new IllegalArgumentException("nearLimit must be in (0, 1], was " + nearLimit);
        }
        if (!(smoothing > 0) || smoothing > 1) {
            throw new IllegalArgumentException("smoothing must be in (0, 1], was " + smoothing);
        }
    }
}
