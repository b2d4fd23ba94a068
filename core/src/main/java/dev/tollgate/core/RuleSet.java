package dev.tollgate.core;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * An immutable set of rules, looked up by tenant and route with this precedence:
 * the rule for (tenant, route), else the tenant's rule for every route ({@code *}), else the
 * default rule. Lookups allocate nothing, so they are cheap on the request path.
 */
public final class RuleSet implements RuleBook {

    private final RateLimitRule defaultRule;
    private final Map<String, Map<String, RateLimitRule>> byTenant;
    private final int size;

    private RuleSet(RateLimitRule defaultRule, Map<String, Map<String, RateLimitRule>> byTenant, int size) {
        this.defaultRule = defaultRule;
        this.byTenant = byTenant;
        this.size = size;
    }

    /**
     * Builds a rule set; fails on a duplicate (tenant, route) pair, naming it, rather than letting
     * one rule silently win.
     */
    public static RuleSet of(RateLimitRule defaultRule, Collection<ScopedRule> rules) {
        if (defaultRule == null) {
            throw new IllegalArgumentException("a default rule is required");
        }
        Map<String, Map<String, RateLimitRule>> byTenant = new HashMap<>();
        for (ScopedRule r : rules) {
            RateLimitRule previous = byTenant.computeIfAbsent(r.tenant(), t -> new HashMap<>())
                    .putIfAbsent(r.route(), r.rule());
            if (previous != null) {
                throw new IllegalArgumentException(
                        "duplicate rule for tenant '" + r.tenant() + "' and route '" + r.route() + "'");
            }
        }
        Map<String, Map<String, RateLimitRule>> frozen = new HashMap<>();
        byTenant.forEach((tenant, routes) -> frozen.put(tenant, Map.copyOf(routes)));
        return new RuleSet(defaultRule, Map.copyOf(frozen), rules.size());
    }

    @Override
    public RateLimitRule ruleFor(String tenant, String route) {
        Map<String, RateLimitRule> routes = byTenant.get(tenant);
        if (routes == null) {
            return defaultRule;
        }
        RateLimitRule exact = routes.get(route);
        if (exact != null) {
            return exact;
        }
        RateLimitRule anyRoute = routes.get(ScopedRule.ANY_ROUTE);
        return anyRoute != null ? anyRoute : defaultRule;
    }

    public RateLimitRule defaultRule() {
        return defaultRule;
    }

    /** Number of scoped rules, the default rule not counted. */
    public int size() {
        return size;
    }
}
