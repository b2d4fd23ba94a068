package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.DIRECT;
import static dev.tollgate.bench.report.Targets.NO_LIMITER;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** Closed-loop maximum throughput of every target; template {@code report/throughput.mustache}. */
record ThroughputSection(String chartDir, List<Row> rows, String direct, String directOverNoLimiter) {

    /** One target: its median, its share of the no-limiter gateway's, and every run. */
    record Row(String target, String median, String vsNoLimiter, String runs) {
    }

    static ThroughputSection of(Figures f) {
        double none = f.medianThroughput(NO_LIMITER);
        double direct = f.medianThroughput(DIRECT);
        List<Row> rows = f.results().targets().stream().map(target -> {
            double t = f.medianThroughput(target);
            return new Row(target, Fmt.rate(t), target.equals(DIRECT) ? "—" : Fmt.pct(t / none),
                    f.results().throughput().stream().filter(r -> r.target().equals(target))
                            .map(r -> Fmt.rate(r.result().achievedRate())).collect(Collectors.joining(", ")));
        }).toList();
        return new ThroughputSection(BenchmarkReport.CHART_DIR, rows, Fmt.rate(direct),
                String.format(Locale.ROOT, "%.1f", direct / none));
    }
}
