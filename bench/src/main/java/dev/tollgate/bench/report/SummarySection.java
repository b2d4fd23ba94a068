package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.BUILT_IN;
import static dev.tollgate.bench.report.Targets.NO_LIMITER;
import static dev.tollgate.bench.report.Targets.TOLLGATE;
import static dev.tollgate.bench.report.Targets.TOLLGATE_THREE_LIMITS;

import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.bench.scenario.HotKeyCost;
import dev.tollgate.bench.scenario.ParallelBurst;
import dev.tollgate.bench.suite.SuiteResults;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The summary table (Tollgate beside the built-in limiter), the targets' verdicts and what lies
 * behind them; template {@code report/summary.mustache}.
 */
record SummarySection(List<Row> rows, List<TargetRow> targets, String rate, String rateAnchor, String noiseMin,
                      String noiseMax, String noiseMedian, long runSeconds, String evalsha, String ping,
                      String addedP50, int cpus, LeaseHitFigures.Discussion leaseHit, String tollgateLoad,
                      String tollgateMax, String noLimiterLoad, String builtInLoad, String builtInMax,
                      boolean builtInSaturated, String decisionP50, String decisionP99) {

    static final List<Double> PERCENTILES = List.of(50.0, 99.0, 99.9);

    /** A row of the summary table. */
    record Row(String label, String tollgate, String builtIn) {
    }

    /** A target, what was measured, and whether it was met. */
    record TargetRow(String target, String measured, String verdict) {
    }

    static SummarySection of(Figures f) {
        SuiteResults results = f.results();
        double rate = f.headlineRate();
        double tollgate = f.medianAdded(TOLLGATE, rate, 99);
        double builtIn = f.medianAdded(BUILT_IN, rate, 99);
        // The end-to-end difference of two noisy tails can come out small by luck; the gateway's
        // own timing of the decision cannot, so the target must hold for both.
        double decisionP99 = f.medianDecisionTime(rate, 99);
        double none = f.medianThroughput(NO_LIMITER);
        double tollgateMax = f.medianThroughput(TOLLGATE);
        double builtInMax = f.medianThroughput(BUILT_IN);
        LeaseHitFigures lease = new LeaseHitFigures(results.micro());

        List<Row> rows = new ArrayList<>();
        for (double p : PERCENTILES) {
            rows.add(new Row("latency added at " + Fmt.rate(rate) + " req/s, p" + Fmt.percentile(p),
                    Fmt.ms(f.medianAdded(TOLLGATE, rate, p)), Fmt.ms(f.medianAdded(BUILT_IN, rate, p))));
        }
        rows.add(new Row("decision time inside the gateway at " + Fmt.rate(rate) + " req/s, p99 (`tollgate_decision_duration_seconds`)",
                "≤ " + Fmt.fmt2(f.medianDecisionTime(rate, 99)) + " ms", "—"));
        rows.add(new Row("throughput at saturation, cold tenants (no limiter: " + Fmt.rate(none) + " req/s)",
                Fmt.rate(tollgateMax) + " req/s (" + Fmt.pct(tollgateMax / none) + " of no limiter)",
                Fmt.rate(builtInMax) + " req/s (" + Fmt.pct(builtInMax / none) + ")"));
        rows.add(both("Redis round trips per request", l -> Fmt.fmt2(f.medianOverRuns(l, Figures::scriptCallsPerRequest))));
        rows.add(both("Redis commands executed per request (inside the script included)",
                l -> Fmt.fmt2(f.medianOverRuns(l, Figures::commandsPerRequest))));
        rows.add(both("admitted / limit, " + f.plan().accuracyInstances() + " instances, one tenant",
                l -> f.accuracyOf(l).map(a -> Fmt.fmt3(a.admittedOverLimit())).orElse("n/a")));
        rows.add(both("Redis memory per bucket",
                l -> f.memoryOf(l).map(m -> Fmt.bytes(m.bytesPerBucket())).orElse("n/a")));
        f.memoryOf(TOLLGATE_THREE_LIMITS).ifPresent(m -> rows.add(new Row(
                "Redis memory per limit state, 3 limits each (plans; [memory](#redis-memory-per-bucket))",
                Fmt.bytes(m.bytesPerBucket()), "—")));
        lease.summaryRow().ifPresent(rows::add);
        results.micro().stream().filter(m -> m.benchmark().startsWith("RuleLoadBenchmark")).findFirst()
                .ifPresent(m -> rows.add(new Row("building a rule set of 100,000 rules (in memory)",
                        String.format(Locale.ROOT, "%.1f %s", m.score(), m.unit()), "—")));
        for (String directory : List.of("rules", "plans")) {
            String what = directory.equals("rules") ? "100,000 rules and 100,000 API keys"
                    : "100,000 tenants on 3 plans (no rule rows) and 100,000 API keys";
            String time = results.micro().stream().filter(m -> m.benchmark().equals(MicroSection.DIRECTORY_LOAD)
                            && (m.params().isEmpty() ? directory.equals("rules") : m.params().equals("directory=" + directory)))
                    .findFirst().map(m -> String.format(Locale.ROOT, "%.0f %s", m.score(), m.unit())).orElse(null);
            String heap = results.directories().stream().filter(d -> d.directory().equals(directory)).findFirst()
                    .map(d -> String.format(Locale.ROOT, "%.1f MB of heap retained by the snapshot", d.retainedBytes() / 1e6))
                    .orElse(null);
            if (time != null || heap != null) {
                rows.add(new Row("full load of " + what + " from PostgreSQL",
                        String.join("; ", java.util.stream.Stream.of(time, heap).filter(x -> x != null).toList()), "—"));
            }
        }
        double threeLimits = f.medianThroughput(TOLLGATE_THREE_LIMITS);
        boolean hasThreeLimits = !f.saturationRuns(TOLLGATE_THREE_LIMITS, dev.tollgate.bench.scenario.Saturation.COLD).isEmpty();
        if (hasThreeLimits) {
            rows.add(new Row("throughput at saturation, cold tenants, 3 limits each (route bucket, tenant bucket, day quota)",
                    Fmt.rate(threeLimits) + " req/s (" + Fmt.pct(threeLimits / none) + " of no limiter)", "—"));
            rows.add(new Row("Redis script time per request at saturation, cold tenants (`INFO commandstats`): 1 limit / 3 limits",
                    scriptTime(f, TOLLGATE) + " / " + scriptTime(f, TOLLGATE_THREE_LIMITS), "—"));
        }

        DecisionSplit atSaturation = f.tollgateSaturationDecisions();
        double ratio = tollgateMax / none;
        List<TargetRow> targets = List.of(
                new TargetRow("With a healthy Redis at saturation, production defaults: the local fallback makes ≤ "
                        + Fmt.pct(BenchmarkReport.TARGET_FALLBACK_SHARE) + " of Tollgate's decisions",
                        String.format(Locale.ROOT, "%.2f %% (%s of %s decisions, every saturation run)",
                                100 * atSaturation.fallbackShare(), Fmt.rate(atSaturation.byFallback()),
                                Fmt.rate(atSaturation.decisions())),
                        Fmt.verdict(atSaturation.decisions() > 0
                                        && atSaturation.fallbackShare() <= BenchmarkReport.TARGET_FALLBACK_SHARE,
                                atSaturation.decisions() == 0 ? "no decisions counted" : "over by "
                                        + String.format(Locale.ROOT, "%.2f points",
                                        100 * (atSaturation.fallbackShare() - BenchmarkReport.TARGET_FALLBACK_SHARE)))),
                new TargetRow("Throughput at saturation with " + Fmt.rate(f.plan().latencyTenants())
                        + " cold tenants ≥ " + BenchmarkReport.TARGET_THROUGHPUT_RATIO + " × no limiter",
                        Fmt.rate(tollgateMax) + " vs " + Fmt.rate(none) + " req/s: "
                                + String.format(Locale.ROOT, "%.2f", ratio) + " ×",
                        Fmt.verdict(ratio >= BenchmarkReport.TARGET_THROUGHPUT_RATIO,
                                String.format(Locale.ROOT, "%.2f ×", ratio))),
                new TargetRow("Tollgate's added p99 ≤ " + Fmt.fmt2(BenchmarkReport.TARGET_ADDED_P99_MS)
                        + " ms at half the no-limiter capacity (" + Fmt.rate(rate) + " req/s), end to end and as"
                        + " the gateway times its decisions",
                        "end to end " + Fmt.ms(tollgate) + " (per round: " + perRound(f, TOLLGATE, rate)
                                + "); inside the gateway, the wait for a decision: p99 ≤ "
                                + Fmt.fmt2(decisionP99) + " ms",
                        Fmt.verdict(tollgate <= BenchmarkReport.TARGET_ADDED_P99_MS
                                        && decisionP99 <= BenchmarkReport.TARGET_ADDED_P99_MS,
                                addedP99Miss(tollgate, decisionP99))),
                new TargetRow("Tollgate's added p99 no worse than the built-in limiter's at " + Fmt.rate(rate) + " req/s",
                        Fmt.ms(tollgate) + " vs " + Fmt.ms(builtIn) + " (built-in per round: "
                                + perRound(f, BUILT_IN, rate) + ")",
                        Fmt.verdict(tollgate <= builtIn, "worse by " + Fmt.ms(tollgate - builtIn))),
                threeLimitsTarget(f, hasThreeLimits, threeLimits, none),
                limitStateMemoryTarget(f),
                burstTarget(results.burst()),
                hotKeyTarget(results.hotKey()),
                lease.targetRow());

        List<Double> baseline = f.runs(NO_LIMITER, rate).stream().map(r -> r.result().percentileMillis(99)).toList();
        return new SummarySection(rows, targets, Fmt.rate(rate), Fmt.rate(rate).replace(",", ""),
                Fmt.fmt2(baseline.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN)),
                Fmt.fmt2(baseline.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)),
                Fmt.fmt2(f.medianLatency(NO_LIMITER, rate, 99)), f.plan().latencyRun().toSeconds(),
                f.microScore("RedisRoundTripBenchmark.tryAcquire"), f.microScore("RedisRoundTripBenchmark.ping"),
                Fmt.ms(f.medianAdded(TOLLGATE, rate, 50)), results.machine().cpus(),
                lease.discussion().orElse(null), Fmt.pct(rate / tollgateMax), Fmt.rate(tollgateMax),
                Fmt.pct(rate / none), Fmt.pct(rate / builtInMax), Fmt.rate(builtInMax), builtInMax < rate * 1.1,
                Fmt.fmt2(f.medianDecisionTime(rate, 50)), Fmt.fmt2(f.medianDecisionTime(rate, 99)));
    }

    private static String addedP99Miss(double endToEnd, double decisionP99) {
        double target = BenchmarkReport.TARGET_ADDED_P99_MS;
        List<String> misses = new ArrayList<>();
        if (!(endToEnd <= target)) {
            misses.add("end to end by " + Fmt.ms(endToEnd - target));
        }
        if (!(decisionP99 <= target)) {
            misses.add("inside the gateway by up to " + Fmt.ms(decisionP99 - target));
        }
        return String.join(", ", misses);
    }

    private static Row both(String label, Function<String, String> figure) {
        return new Row(label, figure.apply(TOLLGATE), figure.apply(BUILT_IN));
    }

    private static String perRound(Figures f, String target, double rate) {
        return f.addedPerRound(target, rate, 99).stream().map(Fmt::ms).collect(Collectors.joining(", "));
    }

    private static String scriptTime(Figures f, String target) {
        String mix = dev.tollgate.bench.scenario.Saturation.COLD;
        return SaturationSection.micros(f.medianOfSaturation(target, mix, r -> r.scriptMicrosPerRequest()))
                + " (" + SaturationSection.micros(f.medianOfSaturation(target, mix, r -> r.scriptMicrosPerCall()))
                + " per call)";
    }

    private static TargetRow threeLimitsTarget(Figures f, boolean measured, double threeLimits, double none) {
        String target = "Throughput at saturation with " + Fmt.rate(f.plan().latencyTenants())
                + " cold tenants each under 3 limits (a bucket per route, a tenant bucket, a day quota) ≥ "
                + BenchmarkReport.TARGET_THREE_LIMITS_RATIO + " × no limiter";
        if (!measured) {
            return new TargetRow(target, "not measured in this run", "n/a");
        }
        double ratio = threeLimits / none;
        return new TargetRow(target, Fmt.rate(threeLimits) + " vs " + Fmt.rate(none) + " req/s: "
                + String.format(Locale.ROOT, "%.2f", ratio) + " × ([saturation](#throughput-at-saturation))",
                Fmt.verdict(ratio >= BenchmarkReport.TARGET_THREE_LIMITS_RATIO, String.format(Locale.ROOT, "%.2f ×", ratio)));
    }

    private static TargetRow limitStateMemoryTarget(Figures f) {
        String target = "Redis memory per limit state with 3 limits per request (a bucket per route, a tenant bucket,"
                + " a day quota) ≤ " + Fmt.bytes(BenchmarkReport.TARGET_LIMIT_STATE_BYTES) + " all in";
        return f.memoryOf(TOLLGATE_THREE_LIMITS)
                .map(m -> new TargetRow(target, Fmt.bytes(m.bytesPerBucket()) + " (" + Fmt.rate(m.buckets())
                        + " states in " + Fmt.rate(m.keys()) + " keys; [memory](#redis-memory-per-bucket))",
                        Fmt.verdict(m.bytesPerBucket() <= BenchmarkReport.TARGET_LIMIT_STATE_BYTES,
                                "over by " + Fmt.bytes(m.bytesPerBucket() - BenchmarkReport.TARGET_LIMIT_STATE_BYTES))))
                .orElse(new TargetRow(target, "not measured in this run", "n/a"));
    }

    private static TargetRow burstTarget(List<ParallelBurst.Result> burst) {
        String target = "1,000 parallel requests from 100 clients on one bucket of 50 admit at most 50 + what refilled";
        return burst.stream().filter(b -> b.limiter().equals(TOLLGATE)).findFirst()
                .map(b -> new TargetRow(target, b.admitted() + " admitted, at most "
                        + String.format(Locale.ROOT, "%.1f", b.bound()) + " ([parallel burst](#1000-parallel-requests-on-one-bucket))",
                        Fmt.verdict(b.withinBound(), "over the bound")))
                .orElse(new TargetRow(target, "not measured in this run", "n/a"));
    }

    private static TargetRow hotKeyTarget(List<HotKeyCost.Result> hotKey) {
        String target = "With leases a hot key costs ≤ 1 Redis call per "
                + Fmt.rate(1 / BenchmarkReport.TARGET_HOT_KEY_CALLS_PER_ADMITTED) + " admitted requests";
        if (hotKey.isEmpty()) {
            return new TargetRow(target, "not measured in this run", "n/a");
        }
        HotKeyCost.Result h = hotKey.get(0);
        String onePer = String.format(Locale.ROOT, "%.1f", 1 / h.callsPerAdmitted());
        return new TargetRow(target, Fmt.rate(h.scriptCalls()) + " script calls for " + Fmt.rate(h.admitted())
                + " admitted: 1 per " + onePer + " ([hot key](#a-hot-key-with-token-leases))",
                Fmt.verdict(h.callsPerAdmitted() <= BenchmarkReport.TARGET_HOT_KEY_CALLS_PER_ADMITTED,
                        "1 call per " + onePer + " admitted"));
    }
}
