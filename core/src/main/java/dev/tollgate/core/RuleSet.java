package dev.tollgate.core;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * An immutable set of rules, looked up by tenant and route with this precedence:
 * the rule for (tenant, route), else the tenant's rule for every route ({@code *}), else the
 * default rule. Changing a few rules ({@link #withChanges}) costs in proportion to the changes, not
 * to the number of rules (see {@link LayeredMap}).
 */
public final class RuleSet implements RuleBook {

    private final RateLimitRule defaultRule;
    private final LayeredMap<RuleScope, RateLimitRule> rules;

    private RuleSet(RateLimitRule defaultRule, LayeredMap<RuleScope, RateLimitRule> rules) {
        this.defaultRule = defaultRule;
        this.rules = rules;
    }

    /**
     * Builds a rule set; fails on a duplicate (tenant, route) pair, naming it, rather than letting
     * one rule silently win.
     */
    public static RuleSet of(RateLimitRule defaultRule, Collection<ScopedRule> rules) {
        if (defaultRule == null) {
            throw new IllegalArgumentException("a default rule is required");
        }
        Map<RuleScope, RateLimitRule> byScope = new HashMap<>();
        for (ScopedRule r : rules) {
            if (byScope.putIfAbsent(new RuleScope(r.tenant(), r.route()), r.rule()) != null) {
                throw new IllegalArgumentException(
                        "duplicate rule for tenant '" + r.tenant() + "' and route '" + r.route() + "'");
            }
        }
        return new RuleSet(defaultRule, LayeredMap.of(byScope));
    }

    /** This set with some rules put (present) or removed (empty). */
    public RuleSet withChanges(Map<RuleScope, Optional<RateLimitRule>> changes) {
        return new RuleSet(defaultRule, rules.with(changes));
    }

    @Override
    public RateLimitRule ruleFor(String tenant, String route) {
        RateLimitRule exact = rules.get(new RuleScope(tenant, route));
        if (exact != null) {
            return exact;
        }
        RateLimitRule anyRoute = rules.get(new RuleScope(tenant, ScopedRule.ANY_ROUTE));
        return anyRoute != null ? anyRoute : defaultRule;
    }

    /**
     * The rule written for exactly {@code (tenant, route)} ({@code route} may be
     * {@link ScopedRule#ANY_ROUTE}), or null: no fallback to the tenant's {@code *} rule or the default.
     */
    public RateLimitRule ruleAt(String tenant, String route) {
        return rules.get(new RuleScope(tenant, route));
    }

    public RateLimitRule defaultRule() {
        return defaultRule;
    }

    /** Visits every scoped rule, the default rule not included (order unspecified). */
    public void forEachRule(BiConsumer<RuleScope, RateLimitRule> action) {
        rules.forEach(action);
    }

    /** Number of scoped rules, the default rule not counted. */
    public int size() {
        return rules.size();
    }
}
