package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class RuleSetTest {

    private static final RateLimitRule DEFAULT = RateLimitRule.of(20, 10);
    private static final RateLimitRule EXACT = RateLimitRule.of(200, 100);
    private static final RateLimitRule TENANT_WIDE = RateLimitRule.of(50, 5);

    private final RuleSet rules = RuleSet.of(DEFAULT, List.of(
            new ScopedRule("shop-a", "create-order", EXACT),
            new ScopedRule("shop-a", ScopedRule.ANY_ROUTE, TENANT_WIDE),
            new ScopedRule("shop-b", "create-order", EXACT)));

    @Test
    void exactRuleWins() {
        assertThat(rules.ruleFor("shop-a", "create-order")).isEqualTo(EXACT);
    }

    @Test
    void tenantWideRuleCoversOtherRoutes() {
        assertThat(rules.ruleFor("shop-a", "list-orders")).isEqualTo(TENANT_WIDE);
    }

    @Test
    void defaultCoversUnknownTenantsAndRoutes() {
        assertThat(rules.ruleFor("shop-b", "list-orders")).isEqualTo(DEFAULT);
        assertThat(rules.ruleFor("nobody", "create-order")).isEqualTo(DEFAULT);
    }

    @Test
    void changesApplyWithoutTouchingTheOldSet() {
        RuleSet changed = rules.withChanges(java.util.Map.of(
                new RuleScope("shop-a", "create-order"), java.util.Optional.empty(),
                new RuleScope("shop-c", "create-order"), java.util.Optional.of(EXACT)));
        assertThat(changed.ruleFor("shop-a", "create-order")).isEqualTo(TENANT_WIDE);
        assertThat(changed.ruleFor("shop-c", "create-order")).isEqualTo(EXACT);
        assertThat(changed.size()).isEqualTo(3);
        assertThat(rules.ruleFor("shop-a", "create-order")).isEqualTo(EXACT);
        assertThat(rules.ruleFor("shop-c", "create-order")).isEqualTo(DEFAULT);
    }

    @Test
    void refusesDuplicates() {
        assertThatThrownBy(() -> RuleSet.of(DEFAULT, List.of(
                new ScopedRule("t", "r", EXACT), new ScopedRule("t", "r", DEFAULT))))
                .hasMessageContaining("duplicate rule for tenant 't' and route 'r'");
    }

    @Test
    void forEachRuleVisitsTheScopedRulesAsChangedButNotTheDefault() {
        RuleSet changed = rules.withChanges(java.util.Map.of(
                new RuleScope("shop-b", "create-order"), java.util.Optional.empty(),
                new RuleScope("shop-c", "list-orders"), java.util.Optional.of(TENANT_WIDE)));
        java.util.Map<RuleScope, RateLimitRule> seen = new java.util.HashMap<>();
        changed.forEachRule(seen::put);
        assertThat(seen).containsOnly(
                java.util.Map.entry(new RuleScope("shop-a", "create-order"), EXACT),
                java.util.Map.entry(new RuleScope("shop-a", ScopedRule.ANY_ROUTE), TENANT_WIDE),
                java.util.Map.entry(new RuleScope("shop-c", "list-orders"), TENANT_WIDE));
    }
}
