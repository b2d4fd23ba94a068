package dev.tollgate.spring.region;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RuleBook;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.region.ShareRebalancer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of the rebalancer, in one transaction on the session that holds its lock: claim the run,
 * read the fresh reports and what earlier runs kept, plan ({@link ShareRebalancer}), write, and
 * notify every instance if any share changed.
 *
 * <p>Reports count as fresh for two intervals plus a second (an instance reports once per interval);
 * instances silent for ten intervals plus ten seconds are forgotten with their reports. A run is
 * skipped if another started less than half an interval before.
 */
final class RebalancerRun {

    private static final Logger log = LoggerFactory.getLogger(RebalancerRun.class);

    private final RegionRepository repository;
    private final ShareRebalancer rebalancer;
    private final RuleBook globalRules;
    private final String instanceId;
    private final long periodMillis;
    private final RebalancerMetrics metrics;
    private final MonotonicClock clock;

    RebalancerRun(RegionRepository repository, ShareRebalancer rebalancer, RuleBook globalRules, String instanceId,
                  Duration interval, RebalancerMetrics metrics, MonotonicClock clock) {
        this.repository = repository;
        this.rebalancer = rebalancer;
        this.globalRules = globalRules;
        this.instanceId = instanceId;
        this.periodMillis = interval.toMillis();
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * Runs once on {@code c}; returns the configured regions that did not report (nothing moved while
     * any is silent), or {@code silentBefore} if the run was skipped.
     */
    Set<String> run(Connection c, Set<String> silentBefore) throws SQLException {
        long start = clock.nanoTime();
        c.setAutoCommit(false);
        try {
            if (!repository.claimRun(c, instanceId, periodMillis / 2)) {
                return silentBefore; // another instance ran moments ago (before this one took the lock)
            }
            long fresh = 2 * periodMillis + 1000;
            Set<String> reporting = repository.reportingRegions(c, fresh);
            Map<RuleScope, Map<String, Double>> demand = repository.reportedDemand(c, fresh);
            ShareRebalancer.Plan plan = rebalancer.plan(
                    repository.tracked(c, problem -> log.warn("Rebalancer: skipped {}", problem)),
                    demand, reporting, bucket -> globalRules.ruleFor(bucket.tenant(), bucket.route()));
            repository.write(c, plan.writes());
            boolean changed = !plan.moved().isEmpty() || !plan.started().isEmpty();
            if (changed) {
                repository.sharesChanged(c);
            }
            repository.pruneReporters(c, 10 * periodMillis + 10_000);
            c.commit();
            long nanos = clock.nanoTime() - start;
            metrics.run(plan.silent().isEmpty() ? RebalancerMetrics.Outcome.DONE : RebalancerMetrics.Outcome.WAITING,
                    nanos, plan.moved().size());
            if (!plan.silent().equals(silentBefore)) {
                // Said once per change, not every interval while a region stays away.
                log.info(plan.silent().isEmpty() ? "Rebalancer: every region reports; shares move with the traffic"
                        : "Rebalancer: no report from region(s) {}; every share stays where it is", plan.silent());
            }
            if (changed) {
                log.info("Rebalancer: moved the shares of {} bucket(s), started tracking {} in {} ms",
                        plan.moved().size(), plan.started().size(), TimeUnit.NANOSECONDS.toMillis(nanos));
            }
            return plan.silent();
        } catch (SQLException | RuntimeException e) {
            metrics.run(RebalancerMetrics.Outcome.FAILED, clock.nanoTime() - start, 0);
            throw e;
        } finally {
            RegionRepository.finish(c);
        }
    }
}
