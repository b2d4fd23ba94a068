package dev.tollgate.bench.metrics;

/**
 * How a cluster of Tollgate instances decided the requests of one run, summed over the instances
 * from the difference of their {@code /actuator/prometheus} counters before and after it: which
 * path decided ({@code tollgate_decisions_total{source}}), how many Redis calls were cut off, and
 * the lease traffic. It tells a figure measured on the Redis path from one that the local fallback
 * helped make (a starved machine pushes calls past the cut-off).
 *
 * @param byRedis         decisions made by a Redis call of their own (a lease fetch's own request included)
 * @param byLease         decisions served from a lease held by the instance
 * @param byFallback      decisions made by the instance's local share, Redis having failed or the breaker open
 * @param redisFailures   Redis calls that failed or were cut off ({@code tollgate_redis_failures_total})
 * @param leaseCalls      calls that took a batch of tokens ({@code tollgate_leases_calls_total})
 * @param leaseReturns    calls that gave unspent leased tokens back ({@code tollgate_leases_returns_total})
 */
public record DecisionSplit(long byRedis, long byLease, long byFallback, long redisFailures, long leaseCalls,
                            long leaseReturns) {

    /** For a limiter that exports none of these counters (the built-in one). */
    public static final DecisionSplit NONE = new DecisionSplit(0, 0, 0, 0, 0, 0);

    public long decisions() {
        return byRedis + byLease + byFallback;
    }

    /** Share of the decisions made by the local fallback (0 when there were none). */
    public double fallbackShare() {
        return decisions() == 0 ? 0 : (double) byFallback / decisions();
    }

    /** "Redis 97.1 %, lease 2.9 %, fallback 0.0 %" (or "—" without decisions). */
    public String shares() {
        if (decisions() == 0) {
            return "—";
        }
        double all = decisions();
        return String.format(java.util.Locale.ROOT, "Redis %.1f %%, lease %.1f %%, fallback %.2f %%",
                100 * byRedis / all, 100 * byLease / all, 100 * byFallback / all);
    }

    /** Whether the local fallback decided any request of the run. */
    public boolean fallbackDecided() {
        return byFallback > 0;
    }

    DecisionSplit minus(DecisionSplit before) {
        return new DecisionSplit(byRedis - before.byRedis, byLease - before.byLease, byFallback - before.byFallback,
                redisFailures - before.redisFailures, leaseCalls - before.leaseCalls,
                leaseReturns - before.leaseReturns);
    }

    public DecisionSplit plus(DecisionSplit other) {
        return new DecisionSplit(byRedis + other.byRedis, byLease + other.byLease, byFallback + other.byFallback,
                redisFailures + other.redisFailures, leaseCalls + other.leaseCalls,
                leaseReturns + other.leaseReturns);
    }
}
