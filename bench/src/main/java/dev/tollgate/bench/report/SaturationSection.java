package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.DIRECT;
import static dev.tollgate.bench.report.Targets.NO_LIMITER;

import dev.tollgate.bench.scenario.Saturation;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Every target at saturation, for each request mix: throughput, its ratio to no limiter, the
 * gateway's CPU per request, what Redis paid and how Tollgate decided; template
 * {@code report/saturation.mustache}.
 */
record SaturationSection(String chartDir, List<Mix> mixes, String direct, String directOverNoLimiter,
                         SuiteFacts plan) {

    /** One request mix and its rows. */
    record Mix(String title, List<Row> rows) {
    }

    /** One target under one mix: medians over rounds, and every round's throughput. */
    record Row(String target, String rate, String vsNoLimiter, String cpuPerRequest, String scriptCalls,
               String redisCpu, String scriptPerCall, String scriptPerRequest, String decisions, String runs) {
    }

    /** The run's shape, for the prose. */
    record SuiteFacts(int concurrency, long seconds, int rounds, int tenants) {
    }

    static SaturationSection of(Figures f) {
        List<Mix> mixes = List.of(
                mix(f, Saturation.COLD, Fmt.rate(f.plan().latencyTenants()) + " cold tenants in rotation"),
                mix(f, Saturation.HOT, "one hot tenant"));
        double none = f.medianThroughput(NO_LIMITER);
        double direct = f.medianThroughput(DIRECT);
        return new SaturationSection(BenchmarkReport.CHART_DIR, mixes, Fmt.rate(direct),
                String.format(Locale.ROOT, "%.1f", direct / none),
                new SuiteFacts(f.plan().saturationConcurrency(), f.plan().saturationRun().toSeconds(),
                        f.plan().saturationRepetitions(), f.plan().latencyTenants()));
    }

    private static Mix mix(Figures f, String mix, String title) {
        double none = f.medianThroughput(NO_LIMITER, mix);
        List<Row> rows = f.results().saturationTargets().stream().map(target -> {
            double t = f.medianThroughput(target, mix);
            boolean isDirect = target.equals(DIRECT);
            boolean callsScripts = !isDirect
                    && f.medianOfSaturation(target, mix, Saturation.Run::scriptCallsPerThousand) >= 1;
            List<Saturation.Run> runs = f.saturationRuns(target, mix);
            String decisions = runs.stream().map(Saturation.Run::decisions)
                    .reduce(dev.tollgate.bench.metrics.DecisionSplit.NONE, (a, b) -> a.plus(b)).shares();
            return new Row(target, Fmt.rate(t), isDirect ? "—" : Fmt.pct(t / none),
                    isDirect ? "—" : String.format(Locale.ROOT, "%.0f µs",
                            f.medianOfSaturation(target, mix, Saturation.Run::cpuMicrosPerRequest)),
                    isDirect ? "—" : String.format(Locale.ROOT, "%.0f",
                            f.medianOfSaturation(target, mix, Saturation.Run::scriptCallsPerThousand)),
                    isDirect ? "—" : String.format(Locale.ROOT, "%.1f ms",
                            f.medianOfSaturation(target, mix, Saturation.Run::redisCpuMillisPerThousand)),
                    // Targets that call no script (direct, no limiter) still see a stray call of another
                    // gateway's (a lease given back): its time is not theirs.
                    callsScripts ? micros(f.medianOfSaturation(target, mix, Saturation.Run::scriptMicrosPerCall)) : "—",
                    callsScripts ? micros(f.medianOfSaturation(target, mix, Saturation.Run::scriptMicrosPerRequest)) : "—",
                    decisions,
                    runs.stream().map(r -> Fmt.rate(r.result().achievedRate())).collect(Collectors.joining(", ")));
        }).toList();
        return new Mix(title, rows);
    }

    /** Microseconds to one decimal, or a dash where there is nothing to divide (no script call). */
    static String micros(double us) {
        return Double.isNaN(us) ? "—" : String.format(Locale.ROOT, "%.1f µs", us);
    }
}
