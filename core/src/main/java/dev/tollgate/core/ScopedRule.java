package dev.tollgate.core;

/**
 * A rule that applies to one tenant on one route, or on every route of the tenant when
 * {@code route} is {@value #ANY_ROUTE}.
 */
public record ScopedRule(String tenant, String route, RateLimitRule rule) {

    /** The route id that stands for every route of a tenant. */
    public static final String ANY_ROUTE = "*";

    public ScopedRule {
        if (tenant == null || tenant.isBlank()) {
            throw new IllegalArgumentException("tenant must not be blank, was '" + tenant + "'");
        }
        if (route == null || route.isBlank()) {
            throw new IllegalArgumentException("route must not be blank, was '" + route + "'");
        }
        if (rule == null) {
            throw new IllegalArgumentException("rule for tenant '" + tenant + "' route '" + route + "' is missing");
        }
    }
}
