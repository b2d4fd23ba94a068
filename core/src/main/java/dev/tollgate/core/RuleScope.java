package dev.tollgate.core;

/** What a rule applies to: a tenant on a route, or on every route ({@link ScopedRule#ANY_ROUTE}). */
public record RuleScope(String tenant, String route) {
}
