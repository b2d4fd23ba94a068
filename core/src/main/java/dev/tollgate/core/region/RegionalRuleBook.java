package dev.tollgate.core.region;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import java.util.function.Supplier;

/**
 * The rules as one region enforces them: each rule looked up in the global rule book, then scaled
 * to this region's current share of its bucket ({@link RateLimitRule#inRegion}), so that
 * {@code (C, R)} becomes {@code (C × s, R × s)} in this region's own buckets. One map lookup more
 * per request, none when no share has been stored.
 */
public final class RegionalRuleBook implements RuleBook {

    private final RuleBook global;
    private final String region;
    private final Supplier<ShareTable> shares;

    /**
     * @param global the rules as written
     * @param region this instance's region
     * @param shares the current share table (read on every lookup, so a new table applies at once)
     */
    public RegionalRuleBook(RuleBook global, String region, Supplier<ShareTable> shares) {
        this.global = global;
        this.region = RegionShares.requireRegionName(region);
        this.shares = shares;
    }

    @Override
    public RateLimitRule ruleFor(String tenant, String route) {
        RateLimitRule rule = global.ruleFor(tenant, route);
        int ppm = shares.get().ppmFor(region, tenant, route);
        // A region the configuration no longer names gets no share: enforce the smallest, never the whole.
        return rule.inRegion(Math.max(1, ppm));
    }

    public String region() {
        return region;
    }

    /** The rules as written, before this region's share. */
    public RuleBook global() {
        return global;
    }

    /** The share table this book reads on every lookup. */
    public Supplier<ShareTable> shares() {
        return shares;
    }
}
