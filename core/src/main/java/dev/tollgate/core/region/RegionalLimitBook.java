package dev.tollgate.core.region;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.Allowance;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitPrecedence;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.TokenBucket;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The limits as one region enforces them, the {@link LimitBook} counterpart of
 * {@link RegionalRuleBook}: a request on the single-bucket path has its rule scaled to this region's
 * current share ({@link RateLimitRule#inRegion}), exactly as {@code RegionalRuleBook} scales it.
 *
 * <p>On the multi-limit path every limit is replaced by this region's share of it ({@link #inRegion}),
 * which is what the Redis script, the local fallback and the answers then see. The share is, for a
 * limit of scope {@code route} or {@code each-route}, the one the share table gives the bucket of
 * (tenant, route): the rebalancer's if it wrote one, else the default; for a limit of scope
 * {@code tenant} (all of a tenant's routes together), this region's <em>default</em> share: the
 * rebalancer measures and moves shares of (tenant, route) buckets only, so a tenant-wide limit or
 * quota stays at the configured split whatever the traffic does.
 *
 * <p>Error bound, per limit and region (the regions together, shares summing to 1):
 * <ul>
 *   <li>a token bucket: capacity {@code floor(C × s)} whole tokens (a {@link TokenBucket} holds whole
 *       tokens; {@code inRegion} keeps micro-tokens), so the regions together hold less than
 *       {@code C} by under one token per region; rate {@code R × s} rounded down to 0.001 token/s,
 *       as {@code inRegion}; floors: the capacity at least the cost, the rate at least 0.001 token/s,
 *       where they apply the regions together may exceed the limit by one cost of burst and 0.001
 *       token/s per region;</li>
 *   <li>a calendar quota: {@code floor(Q × s)} per window, at least the cost, so the regions together
 *       admit at most {@code Q} per window, under it by less than one unit per region, above it only
 *       where the floor applies (by at most one cost per region).</li>
 * </ul>
 * Each region's Redis counts its own share; nothing is moved between regions' counts when the shares
 * change, so a change of shares in the middle of a quota's window lets each region count against its
 * new share what it already counted: the regions together then admit up to
 * {@code max over the window of Σ regions' shares × Q}, which is {@code Q} (the shares sum to 1 at
 * every instant) plus what a region admitted above its later, smaller share.
 *
 * <p>Cost: with several regions, every multi-limit request builds its limits' regional copies (one
 * small object per limit, none where the share is whole).
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
            return applied.limits().isEmpty() ? applied : multiLimit(applied, tenant, route);
        }
        int ppm = shares.get().ppmFor(region, tenant, route);
        // A region the configuration no longer names gets no share: enforce the smallest, never the whole.
        return applied.withSingleBucket(applied.singleBucket().inRegion(Math.max(1, ppm)));
    }

    private AppliedLimits multiLimit(AppliedLimits applied, String tenant, String route) {
        ShareTable table = shares.get();
        List<LimitPrecedence.Applied> regional = new ArrayList<>(applied.limits().size());
        for (LimitPrecedence.Applied limit : applied.limits()) {
            int ppm = limit.limit().scope().kind() == LimitScope.Kind.TENANT
                    ? table.defaults().ppm(region)
                    : table.ppmFor(region, tenant, route);
            // A region the configuration no longer names gets no share: enforce the smallest, never the whole.
            regional.add(new LimitPrecedence.Applied(inRegion(limit.limit(), Math.max(1, ppm)), limit.source()));
        }
        return new AppliedLimits(regional, null);
    }

    /**
     * {@code limit} as one region enforces it with a share of {@code sharePpm} millionths: a token
     * bucket's capacity {@code floor(C × s)} (at least the cost) and rate {@code R × s} rounded down
     * to 0.001 token/s (at least 0.001), a quota {@code floor(Q × s)} per window (at least the cost);
     * name, scope, cost and shadow unchanged (so the same state counts it). The limit itself for a
     * whole share.
     */
    public static Limit inRegion(Limit limit, int sharePpm) {
        if (sharePpm < 1 || sharePpm > RateLimitRule.WHOLE_SHARE_PPM) {
            throw new IllegalArgumentException("a share is 1 to " + RateLimitRule.WHOLE_SHARE_PPM + " ppm, was "
                    + sharePpm);
        }
        if (sharePpm == RateLimitRule.WHOLE_SHARE_PPM) {
            return limit;
        }
        Allowance regional;
        if (limit.allowance() instanceof TokenBucket bucket) {
            // capacity ≤ 1e9 and the rate in 0.001 token/s ≤ 1e12: the products stay far below 2^63.
            long capacity = Math.max(limit.cost(), bucket.capacity() * sharePpm / RateLimitRule.WHOLE_SHARE_PPM);
            long thousandths = Math.max(1L, Math.round(bucket.refillPerSecond() * 1000d) * sharePpm
                    / RateLimitRule.WHOLE_SHARE_PPM);
            regional = new TokenBucket(capacity, BigDecimal.valueOf(thousandths, 3).doubleValue());
        } else {
            CalendarQuota quota = (CalendarQuota) limit.allowance();
            // quota ≤ 1e12, share ≤ 1e6: the product stays below 2^63.
            long share = Math.max(limit.cost(), quota.quota() * sharePpm / RateLimitRule.WHOLE_SHARE_PPM);
            regional = new CalendarQuota(share, quota.period(), quota.zone());
        }
        return new Limit(limit.name(), limit.scope(), regional, limit.cost(), limit.shadow());
    }

    public String region() {
        return region;
    }
}
