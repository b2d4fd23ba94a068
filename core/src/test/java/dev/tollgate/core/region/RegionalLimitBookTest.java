package dev.tollgate.core.region;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitPrecedence;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.RuleBookLimits;
import dev.tollgate.core.limits.TokenBucket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RegionalLimitBookTest {

    private static final RegionShares DEFAULTS = RegionShares.ofPpm(Map.of("eu", 700_000, "us", 300_000));
    private final RuleSet rules = RuleSet.of(RateLimitRule.of(20, 10),
            List.of(new ScopedRule("shop", "*", RateLimitRule.of(100, 50))));
    private final AtomicReference<ShareTable> table = new AtomicReference<>(ShareTable.defaultsOnly(DEFAULTS));

    @Test
    void aSingleBucketRequestGetsTheSameShareAsTheRegionalRuleBookGives() {
        RegionalLimitBook eu = new RegionalLimitBook(new RuleBookLimits(rules), "eu", table::get);
        RegionalRuleBook euRules = new RegionalRuleBook(rules, "eu", table::get);
        table.set(new ShareTable(DEFAULTS, Map.of(new RuleScope("shop", "orders"),
                RegionShares.ofPpm(Map.of("eu", 800_000, "us", 200_000)))));
        for (String tenant : List.of("shop", "other")) {
            for (String route : List.of("orders", "catalog")) {
                AppliedLimits applied = eu.limitsFor(tenant, route);
                assertThat(applied.singleBucket()).isEqualTo(euRules.ruleFor(tenant, route));
                assertThat(applied.limits().get(0).limit().allowance())
                        .as("the limit as written").isInstanceOf(TokenBucket.class);
            }
        }
        assertThat(eu.limitsFor("shop", "orders").singleBucket().limits().capacityMicros()).isEqualTo(80_000_000L);
        assertThat(eu.limitsFor("shop", "catalog").singleBucket().limits().capacityMicros()).isEqualTo(70_000_000L);
    }

    private static final Limit DAY = new Limit("day", LimitScope.tenant(), new CalendarQuota(1000, QuotaPeriod.DAY));
    private static final Limit RATE = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(10, 1));

    private static AppliedLimits planOf(Limit... limits) {
        return new AppliedLimits(List.of(limits).stream()
                .map(l -> new LimitPrecedence.Applied(l, LimitPrecedence.Source.PLAN)).toList(), null);
    }

    @Test
    void eachLimitOfAMultiLimitRequestIsEnforcedAtThisRegionsShare() {
        table.set(new ShareTable(DEFAULTS, Map.of(new RuleScope("shop", "orders"),
                RegionShares.ofPpm(Map.of("eu", 800_000, "us", 200_000)))));
        AppliedLimits plan = planOf(RATE, DAY);
        RegionalLimitBook eu = new RegionalLimitBook((tenant, route) -> plan, "eu", table::get);

        AppliedLimits orders = eu.limitsFor("shop", "orders");
        assertThat(orders.onSingleBucketPath()).isFalse();
        // The per-route bucket at the (shop, orders) share the rebalancer wrote: 0.8.
        assertThat(orders.limits().get(0).limit()).isEqualTo(new Limit("rate", LimitScope.eachRoute(),
                new TokenBucket(8, 0.8)));
        // The tenant-wide quota at the region's default share, 0.7: the rebalancer moves (tenant, route) shares only.
        assertThat(orders.limits().get(1).limit()).isEqualTo(new Limit("day", LimitScope.tenant(),
                new CalendarQuota(700, QuotaPeriod.DAY)));
        assertThat(orders.limits()).extracting(LimitPrecedence.Applied::source)
                .containsOnly(LimitPrecedence.Source.PLAN);

        AppliedLimits catalog = eu.limitsFor("shop", "catalog");
        assertThat(catalog.limits().get(0).limit().allowance()).isEqualTo(new TokenBucket(7, 0.7));
        assertThat(catalog.limits().get(1).limit().allowance()).isEqualTo(new CalendarQuota(700, QuotaPeriod.DAY));

        RegionalLimitBook us = new RegionalLimitBook((tenant, route) -> plan, "us", table::get);
        assertThat(us.limitsFor("shop", "orders").limits().get(0).limit().allowance()).isEqualTo(new TokenBucket(2, 0.2));
        assertThat(us.limitsFor("shop", "orders").limits().get(1).limit().allowance())
                .isEqualTo(new CalendarQuota(300, QuotaPeriod.DAY));
    }

    @Test
    void sharesRoundDownSoTheRegionsTogetherNeverExceedALimitExceptWhereTheFloorsApply() {
        Limit shadowQuota = new Limit("month", LimitScope.eachRoute(), new CalendarQuota(1_000, QuotaPeriod.MONTH), 3, true);
        Limit rounded = RegionalLimitBook.inRegion(RATE, 333_333);
        assertThat(rounded.allowance()).isEqualTo(new TokenBucket(3, 0.333));
        Limit quota = RegionalLimitBook.inRegion(shadowQuota, 333_333);
        assertThat(quota).isEqualTo(new Limit("month", LimitScope.eachRoute(), new CalendarQuota(333, QuotaPeriod.MONTH),
                3, true));
        // Floors: the capacity and quota at least the cost, the rate at least 0.001 token/s.
        assertThat(RegionalLimitBook.inRegion(RATE.withCost(2), 1).allowance()).isEqualTo(new TokenBucket(2, 0.001));
        assertThat(RegionalLimitBook.inRegion(shadowQuota, 1).allowance())
                .isEqualTo(new CalendarQuota(3, QuotaPeriod.MONTH));
        assertThat(RegionalLimitBook.inRegion(DAY, RateLimitRule.WHOLE_SHARE_PPM)).isSameAs(DAY);

        java.util.Random random = new java.util.Random(22);
        for (int i = 0; i < 1_000; i++) {
            int eu = 1 + random.nextInt(999_999);
            long q = 1 + random.nextInt(1_000_000);
            long c = 1 + random.nextInt(100_000);
            Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(q, QuotaPeriod.DAY));
            Limit burst = new Limit("burst", LimitScope.eachRoute(), new TokenBucket(c, 1000));
            long quotas = quotaOf(RegionalLimitBook.inRegion(day, eu)) + quotaOf(RegionalLimitBook.inRegion(day, 1_000_000 - eu));
            long capacities = capacityOf(RegionalLimitBook.inRegion(burst, eu))
                    + capacityOf(RegionalLimitBook.inRegion(burst, 1_000_000 - eu));
            // Each region rounds down by less than 1; a floor (the cost, 1 here) only lifts a share of 0,
            // which happens only for a limit of 1 split in two.
            assertThat(quotas).as("quota %d split %d", q, eu).isBetween(q - 1, q == 1 ? 2 : q);
            assertThat(capacities).as("capacity %d split %d", c, eu).isBetween(c - 1, c == 1 ? 2 : c);
        }
    }

    private static long quotaOf(Limit limit) {
        return ((CalendarQuota) limit.allowance()).quota();
    }

    private static long capacityOf(Limit limit) {
        return ((TokenBucket) limit.allowance()).capacity();
    }

    @Test
    void aPlanWithoutLimitsStaysWithoutLimits() {
        AppliedLimits none = new AppliedLimits(List.of(), null);
        RegionalLimitBook us = new RegionalLimitBook((tenant, route) -> none, "us", table::get);
        assertThat(us.limitsFor("shop", "orders")).isSameAs(none);
    }
}
