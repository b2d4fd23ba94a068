package dev.tollgate.spring.region;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.spring.limiter.DecisionListener;

/**
 * Counts every decision in this instance's {@link DemandMeter}: in memory only, nothing per request
 * leaves it. A multi-limit request counts once for its (tenant, route), whose share the rebalancer
 * moves, at the cost its first per-route limit charged it (the tokens that bucket was asked for), or
 * 1 when all its limits are tenant-wide; admitted when the request was.
 */
public final class DemandRecorder implements DecisionListener {

    private final DemandMeter meter;

    public DemandRecorder(DemandMeter meter) {
        this.meter = meter;
    }

    @Override
    public void decided(String tenant, String route, RateLimitRule rule, boolean allowed) {
        meter.record(tenant, route, rule.cost(), allowed);
    }

    @Override
    public void decidedLimits(String tenant, String route, MultiLimitDecision decision) {
        long cost = 1;
        for (LimitOutcome outcome : decision.outcomes()) {
            if (outcome.limitDefinition().scope().kind() != LimitScope.Kind.TENANT) {
                cost = outcome.charge().cost();
                break;
            }
        }
        meter.record(tenant, route, cost, decision.admitted());
    }
}
