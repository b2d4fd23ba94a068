package dev.tollgate.core.region;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.LimitBook;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The limits as one region enforces them, the {@link LimitBook} counterpart of
 * {@link RegionalRuleBook}: a request on the single-bucket path has its rule scaled to this region's
 * current share ({@link RateLimitRule#inRegion}), exactly as {@code RegionalRuleBook} scales it.
 *
 * <p><b>Not yet:</b> the multi-limit path has no regional shares. Its limits are returned as written,
 * so with several regions each region enforces every multi-limit request's limits whole (the regions
 * together admit up to their number times a limit).
 */
public final class RegionalLimitBook implements LimitBook {

    private final LimitBook global;
    private final String region;
    private final Supplier<ShareTable> shares;

    /**
     * @param global the limits as written
     * @param region this instance's region
     * @param shares the current share table (read on every lookup, so a new table applies at once)
     */
    public RegionalLimitBook(LimitBook global, String region, Supplier<ShareTable> shares) {
        this.global = Objects.requireNonNull(global, "global");
        this.region = RegionShares.requireRegionName(region);
        this.shares = Objects.requireNonNull(shares, "shares");
    }

    @Override
    public AppliedLimits limitsFor(String tenant, String route) {
        AppliedLimits applied = global.limitsFor(tenant, route);
        if (!applied.onSingleBucketPath()) {
            return applied;
        }
        int ppm = shares.get().ppmFor(region, tenant, route);
        // A region the configuration no longer names gets no share: enforce the smallest, never the whole.
        return applied.withSingleBucket(applied.singleBucket().inRegion(Math.max(1, ppm)));
    }

    public String region() {
        return region;
    }
}
