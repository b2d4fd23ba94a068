package dev.tollgate.spring.limiter;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.MultiLimitDecision;

/**
 * Told of every decision {@link LimitEnforcer} makes, on the request path: it must be quick and must
 * never block (count in memory, publish elsewhere). Multi-region demand accounting is one.
 */
@FunctionalInterface
public interface DecisionListener {

    /** Listens to nothing. */
    DecisionListener NONE = (tenant, route, rule, allowed) -> { };

    /**
     * @param rule    the rule as enforced here (for several regions: scaled to this region's share)
     * @param allowed whether the bucket admitted the request (a shadow rule's rejection is {@code false})
     */
    void decided(String tenant, String route, RateLimitRule rule, boolean allowed);

    /**
     * A decision of the multi-limit path: one request of {@code tenant} on {@code route}, however many
     * limits it was charged to. Nothing by default.
     *
     * @param decision every limit's outcome (for several regions: of the limits scaled to this region's share)
     */
    default void decidedLimits(String tenant, String route, MultiLimitDecision decision) {
    }
}
