package dev.tollgate.core.region;

import dev.tollgate.core.RuleScope;
import java.util.Map;

/**
 * The shares every bucket is split by, as one instance knows them: the shares the rebalancer wrote
 * for some buckets, and the configured default shares for all others. Immutable; an instance swaps
 * in a new table when the rebalancer's writes reach it.
 *
 * <p>Buckets are named by {@link RuleScope} with the route the request really took: a tenant's rule
 * for every route ({@code *}) still gives each route a bucket, and each bucket its own shares.
 */
public final class ShareTable {

    private final RegionShares defaults;
    private final Map<RuleScope, RegionShares> stored;

    public ShareTable(RegionShares defaults, Map<RuleScope, RegionShares> stored) {
        this.defaults = defaults;
        this.stored = Map.copyOf(stored);
    }

    /** Nothing stored yet: every bucket at the default shares. */
    public static ShareTable defaultsOnly(RegionShares defaults) {
        return new ShareTable(defaults, Map.of());
    }

    public RegionShares defaults() {
        return defaults;
    }

    /** The rebalancer's shares, by bucket. */
    public Map<RuleScope, RegionShares> stored() {
        return stored;
    }

    /** The shares of the bucket of {@code tenant} on {@code route}: stored, else the defaults. */
    public RegionShares sharesFor(String tenant, String route) {
        if (stored.isEmpty()) {
            return defaults;
        }
        RegionShares shares = stored.get(new RuleScope(tenant, route));
        return shares == null ? defaults : shares;
    }

    /**
     * The share {@code region} enforces of the bucket of {@code tenant} on {@code route}, in
     * millionths: its stored share, or its default share when nothing is stored for the bucket or
     * when the stored shares do not name the region (a region added to the configuration since the
     * rebalancer last wrote them; until it writes them again over the new set of regions, the new
     * region's default share comes on top of shares that already sum to 1; see
     * {@code docs/multi-region.md}).
     */
    public int ppmFor(String region, String tenant, String route) {
        RegionShares shares = sharesFor(tenant, route);
        return shares.has(region) ? shares.ppm(region) : defaults.ppm(region);
    }

    /** Whether the rebalancer has written shares for this bucket (then it reports its demand). */
    public boolean isTracked(String tenant, String route) {
        return !stored.isEmpty() && stored.containsKey(new RuleScope(tenant, route));
    }
}
