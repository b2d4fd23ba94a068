package dev.tollgate.core.region;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RegionalRuleBookTest {

    private static final RegionShares DEFAULTS = RegionShares.ofPpm(Map.of("eu", 500_000, "us", 500_000));
    private final RuleSet rules = RuleSet.of(RateLimitRule.of(20, 10),
            List.of(new ScopedRule("shop", "*", RateLimitRule.of(100, 50))));
    private final AtomicReference<ShareTable> table = new AtomicReference<>(ShareTable.defaultsOnly(DEFAULTS));

    @Test
    void eachRegionEnforcesItsShareOfTheRuleThatApplies() {
        RegionalRuleBook eu = new RegionalRuleBook(rules, "eu", table::get);
        RegionalRuleBook us = new RegionalRuleBook(rules, "us", table::get);
        assertThat(eu.ruleFor("shop", "orders").limits().capacityMicros()).isEqualTo(50_000_000L);
        assertThat(us.ruleFor("other", "orders").limits().capacityMicros()).isEqualTo(10_000_000L);

        table.set(new ShareTable(DEFAULTS, Map.of(new RuleScope("shop", "orders"),
                RegionShares.ofPpm(Map.of("eu", 800_000, "us", 200_000)))));
        assertThat(eu.ruleFor("shop", "orders").limits().capacityMicros()).isEqualTo(80_000_000L);
        assertThat(us.ruleFor("shop", "orders").limits().refillMicrosPerMilli()).isEqualTo(10_000L);
        assertThat(eu.ruleFor("shop", "catalog").regionSharePpm())
                .as("another route of the same tenant-wide rule is another bucket").isEqualTo(500_000);
        assertThat(eu.ruleFor("shop", "orders").capacity()).as("the rule as written").isEqualTo(100);
    }

    @Test
    void aRegionTheStoredSharesDoNotNameGetsItsDefaultShare() {
        RegionShares threeWays = RegionShares.ofPpm(Map.of("eu", 500_000, "us", 300_000, "ap", 200_000));
        ShareTable withAp = new ShareTable(threeWays, Map.of(new RuleScope("shop", "orders"),
                RegionShares.ofPpm(Map.of("eu", 900_000, "us", 100_000))));
        assertThat(withAp.ppmFor("ap", "shop", "orders")).isEqualTo(200_000);
        assertThat(withAp.ppmFor("eu", "shop", "orders")).isEqualTo(900_000);
        assertThat(withAp.isTracked("shop", "orders")).isTrue();
        assertThat(withAp.isTracked("shop", "catalog")).isFalse();
    }
}
