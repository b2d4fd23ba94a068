package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.BUILT_IN;
import static dev.tollgate.bench.report.Targets.TOLLGATE;

import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.bench.process.BenchRoutes;
import dev.tollgate.bench.suite.SuitePlan;
import java.util.List;
import java.util.Locale;

/**
 * Several instances sharing one Redis against one tenant's limit: admitted over the limit, and
 * which path decided; template {@code report/accuracy.mustache}.
 */
record AccuracySection(String rate, long runSeconds, int instances, long capacity, long perSecond, List<Row> rows,
                       FallbackNote fallback, boolean builtInMeasured, String perInstanceRate) {

    /** One limiter's cluster. */
    record Row(String limiter, int instances, long sent, long admitted, String span, String limit, String ratio,
               long limited, long failed, String decidedBy, String failures) {
    }

    static AccuracySection of(Figures f) {
        SuitePlan plan = f.plan();
        List<Row> rows = f.results().accuracy().stream().map(a -> {
            DecisionSplit d = a.decisions();
            boolean counted = d.decisions() > 0;
            return new Row(a.limiter(), a.instances(), a.sent(), a.admitted(), Fmt.fmt2(a.spanSeconds()),
                    String.format(Locale.ROOT, "%.0f", a.limit()), Fmt.fmt3(a.admittedOverLimit()), a.limited(),
                    a.failed(), counted ? d.byRedis() + " / " + d.byLease() + " / " + d.byFallback() : "—",
                    counted ? Long.toString(d.redisFailures()) : "—");
        }).toList();
        return new AccuracySection(Fmt.rate(plan.accuracyRate()), plan.accuracyRun().toSeconds(),
                plan.accuracyInstances(), BenchRoutes.ACCURACY_CAPACITY, BenchRoutes.ACCURACY_RATE, rows,
                f.accuracyOf(TOLLGATE).map(a -> FallbackNote.of(a.decisions(), "accuracy")).orElse(null),
                f.accuracyOf(BUILT_IN).isPresent(), Fmt.rate(plan.accuracyRate() / plan.accuracyInstances()));
    }
}
