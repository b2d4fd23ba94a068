package dev.tollgate.core.limits;

/**
 * Answers which limits apply to a tenant's request on a route, after precedence (plans, the tenant's
 * own rules, the default plan; see {@link LimitPrecedence}). Implementations read an immutable
 * in-memory view and never block: this is on every request's path.
 */
@FunctionalInterface
public interface LimitBook {

    AppliedLimits limitsFor(String tenant, String route);
}
