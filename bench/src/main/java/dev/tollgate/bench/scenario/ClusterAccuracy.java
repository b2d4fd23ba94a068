package dev.tollgate.bench.scenario;

import static dev.tollgate.bench.process.BenchRoutes.ACCURACY_CAPACITY;
import static dev.tollgate.bench.process.BenchRoutes.ACCURACY_PATH;
import static dev.tollgate.bench.process.BenchRoutes.ACCURACY_RATE;
import static dev.tollgate.bench.process.BenchRoutes.ACCURACY_TENANT;

import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.load.OpenLoopLoad;
import dev.tollgate.bench.load.RequestMix;
import dev.tollgate.bench.metrics.DecisionCounters;
import dev.tollgate.bench.metrics.DecisionSplit;
import java.time.Duration;
import java.util.List;

/**
 * How close a cluster of gateway instances sharing one Redis comes to a tenant's limit: one tenant
 * sends far more than its limit, spread round-robin over the instances, and the admitted requests
 * are counted.
 *
 * <p>The limit over a run is the most a single exact token bucket can admit to that demand: the
 * burst plus the refill over the time in which the admissions were decided,
 * {@code capacity + rate × span}. The span runs from the first request's due time to the last
 * admitted response, so it contains every admission decision: an exact limiter stays at or below
 * 1.00 (just below, by the last response's trip back), and above 1.00 is over-admission.
 */
public final class ClusterAccuracy {

    /**
     * One accuracy run of a cluster of one variant; {@code decisions} says which path decided
     * (Tollgate only, {@link DecisionSplit#NONE} for the built-in limiter).
     */
    public record Result(String limiter, int instances, double offeredRate, double spanSeconds, long sent,
                         long admitted, long limited, long failed, double limit, DecisionSplit decisions) {

        public double admittedOverLimit() {
            return admitted / limit;
        }
    }

    private ClusterAccuracy() {
    }

    public static Result run(String limiter, List<HttpTarget> instances, DecisionCounters counters, double rate,
                             Duration duration) {
        DecisionCounters.Snapshot before = counters.snapshot();
        LoadResult result = new OpenLoopLoad(instances, RequestMix.singleTenant(ACCURACY_PATH, ACCURACY_TENANT))
                .run(rate, duration, Duration.ofSeconds(5));
        double span = result.admittedSpanSeconds();
        double limit = ACCURACY_CAPACITY + ACCURACY_RATE * span;
        return new Result(limiter, instances.size(), rate, span, result.sent(), result.ok(), result.limited(),
                result.otherStatus() + result.errors(), limit, counters.snapshot().since(before));
    }
}
