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

    @Test
    void multiLimitRequestsAreNotSplitYet() {
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(1000, QuotaPeriod.DAY));
        Limit rate = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(10, 1));
        AppliedLimits multi = new AppliedLimits(List.of(new LimitPrecedence.Applied(rate, LimitPrecedence.Source.PLAN),
                new LimitPrecedence.Applied(day, LimitPrecedence.Source.PLAN)), null);
        RegionalLimitBook us = new RegionalLimitBook((tenant, route) -> multi, "us", table::get);
        assertThat(us.limitsFor("shop", "orders")).isSameAs(multi);
    }
}
