package dev.tollgate.core;

/** Answers which rule applies to a tenant on a route. Implementations never block. */
@FunctionalInterface
public interface RuleBook {

    RateLimitRule ruleFor(String tenant, String route);
}
