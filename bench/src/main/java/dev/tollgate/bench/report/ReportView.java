package dev.tollgate.bench.report;

import dev.tollgate.bench.suite.SuiteResults;

/**
 * Everything {@code docs/benchmarks.md} shows, already formatted: one record per section, each
 * rendered by a partial of {@code report/benchmarks.md.mustache}. A new section is a new record
 * with its {@code of(Figures)}, a new partial, and one line in each of this record and the template.
 * The identity section comes rendered already ({@link BenchmarkReport#identityMarkdown}): {@code bench/run.sh
 * --identity} renders it alone, and both must write it alike between its marks.
 */
record ReportView(String date, long minutes, int seconds, SummarySection summary, MachineSection machine,
                  MethodSection method, SaturationSection saturation, LatencySection latency, BurstSection burst,
                  RedisCommandsSection redisCommands, CostCurveSection costCurve, AccuracySection accuracy,
                  HotKeySection hotKey, MemorySection memory, MicroSection micro, String identity,
                  RunsSection runs) {

    static ReportView of(SuiteResults results) {
        Figures f = new Figures(results);
        return new ReportView(results.machine().date(), results.elapsed().toMinutes(),
                results.elapsed().toSecondsPart(), SummarySection.of(f), MachineSection.of(f), MethodSection.of(f),
                SaturationSection.of(f), LatencySection.of(f), BurstSection.of(f), RedisCommandsSection.of(f),
                CostCurveSection.of(f), AccuracySection.of(f), HotKeySection.of(f), MemorySection.of(f),
                MicroSection.of(f), BenchmarkReport.identityMarkdown(IdentitySection.of(f)), RunsSection.of(f));
    }
}
