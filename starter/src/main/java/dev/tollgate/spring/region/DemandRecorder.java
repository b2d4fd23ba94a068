package dev.tollgate.spring.region;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.spring.limiter.DecisionListener;

/** Counts every decision in this instance's {@link DemandMeter}: in memory only, nothing per request leaves it. */
public final class DemandRecorder implements DecisionListener {

    private final DemandMeter meter;

    public DemandRecorder(DemandMeter meter) {
        this.meter = meter;
    }

    @Override
    public void decided(String tenant, String route, RateLimitRule rule, boolean allowed) {
        meter.record(tenant, route, rule.cost(), allowed);
    }
}
