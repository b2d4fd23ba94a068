package dev.tollgate.spring.region;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The rebalancer's meters. Runs, moves and durations are counted by the instance that made the run
 * (the lock holder at the time); the last run's age and the role are reported by every instance.
 */
public final class RebalancerMetrics {

    /** How a run ended: shares planned and written, or nothing done because a region did not report. */
    enum Outcome {
        DONE, WAITING, FAILED;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final MeterRegistry meters;
    private final Counter moved;
    private final Timer duration;

    public RebalancerMetrics(MeterRegistry meters, RegionCoordinator coordinator, CurrentShares shares) {
        this.meters = meters;
        this.moved = Counter.builder("tollgate.rebalancer.rules.moved")
                .description("Buckets (tenant, route) whose regional shares a rebalancer run on this instance moved")
                .register(meters);
        this.duration = Timer.builder("tollgate.rebalancer.duration")
                .description("Time a rebalancer run on this instance took, in its database transaction")
                .register(meters);
        for (Outcome outcome : Outcome.values()) {
            runs(outcome); // every outcome from the start, at 0
        }
        Gauge.builder("tollgate.rebalancer.last.run.age", coordinator, RegionCoordinator::lastRunAgeSeconds)
                .description("Seconds since the rebalancer last ran on any instance (NaN: never, or not read yet)")
                .baseUnit("seconds").register(meters);
        Gauge.builder("tollgate.rebalancer.leader", coordinator, c -> c.isLeader() ? 1 : 0)
                .description("1 while this instance holds the rebalancer's lock (runs it), else 0").register(meters);
        Gauge.builder("tollgate.region.tracked.buckets", shares, s -> s.get().stored().size())
                .description("Buckets whose regional shares the rebalancer keeps (the others have the defaults)")
                .register(meters);
    }

    void run(Outcome outcome, long nanos, int bucketsMoved) {
        runs(outcome).increment();
        duration.record(nanos, TimeUnit.NANOSECONDS);
        moved.increment(bucketsMoved);
    }

    private Counter runs(Outcome outcome) {
        return Counter.builder("tollgate.rebalancer.runs")
                .description("Rebalancer runs made by this instance, by outcome (done, waiting: a region did not"
                        + " report, failed)")
                .tag("outcome", outcome.tag())
                .register(meters);
    }
}
