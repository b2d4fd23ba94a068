package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.BUILT_IN;
import static dev.tollgate.bench.report.Targets.NO_LIMITER;
import static dev.tollgate.bench.report.Targets.TOLLGATE;

import dev.tollgate.bench.scenario.LatencyRun;
import dev.tollgate.bench.scenario.Median;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Latency at fixed rates: every target's percentiles, what the limiters add, and the headline
 * rate round by round beside the other work that ran meanwhile; template
 * {@code report/latency.mustache}.
 */
record LatencySection(String chartDir, List<Row> rows, List<Added> added, List<DecisionTime> decisionTimes,
                      String headlineRate, int cpus, List<String> targets, List<Round> roundRows, long runSeconds) {

    /** One target at one rate. */
    record Row(String rate, String target, String achieved, String p50, String p99, String p999, long failed) {
    }

    /** What one limiter adds over the no-limiter gateway at one rate. */
    record Added(String rate, String limiter, String p50, String p99, String p999) {
    }

    /**
     * Tollgate's own decision time at one rate, medians over the rounds, and the p99 of each round;
     * beside it the Redis call time (written to reply read), the part of a decision that is the
     * round trip.
     */
    record DecisionTime(String rate, String p50, String p99, String p999, String p99PerRound,
                        String redisCallP50, String redisCallP99) {
    }

    /** One round at the headline rate: every target's p99, the limiters' with what they added. */
    record Round(int round, String otherWork, List<String> cells) {
    }

    static LatencySection of(Figures f) {
        List<String> targets = f.results().targets();
        List<Row> rows = new ArrayList<>();
        List<Added> added = new ArrayList<>();
        List<DecisionTime> decisionTimes = new ArrayList<>();
        for (double rate : f.rates()) {
            decisionTimes.add(new DecisionTime(Fmt.rate(rate), Fmt.fmt2(f.medianDecisionTime(rate, 50)),
                    Fmt.fmt2(f.medianDecisionTime(rate, 99)), Fmt.fmt2(f.medianDecisionTime(rate, 99.9)),
                    String.join(", ", f.decisionTimePerRound(rate, 99).stream().map(Fmt::fmt2).toList()),
                    Fmt.fmt2(f.medianRedisCallTime(rate, 50)), Fmt.fmt2(f.medianRedisCallTime(rate, 99))));
            for (String target : targets) {
                List<LatencyRun> runs = f.runs(target, rate);
                long failed = runs.stream().mapToLong(r -> r.result().limited() + r.result().otherStatus()
                        + r.result().errors()).sum();
                rows.add(new Row(Fmt.rate(rate), target,
                        Fmt.rate(Median.of(runs.stream().map(r -> r.result().achievedRate()).toList())),
                        Fmt.fmt2(f.medianLatency(target, rate, 50)), Fmt.fmt2(f.medianLatency(target, rate, 99)),
                        Fmt.fmt2(f.medianLatency(target, rate, 99.9)), failed));
            }
            for (String limiter : List.of(TOLLGATE, BUILT_IN)) {
                added.add(new Added(Fmt.rate(rate), limiter, Fmt.ms(f.medianAdded(limiter, rate, 50)),
                        Fmt.ms(f.medianAdded(limiter, rate, 99)), Fmt.ms(f.medianAdded(limiter, rate, 99.9))));
            }
        }
        double headline = f.headlineRate();
        List<Round> rounds = new ArrayList<>();
        for (int round = 1; round <= f.rounds(); round++) {
            List<String> cells = new ArrayList<>();
            for (String target : targets) {
                cells.add(cell(f, target, headline, round));
            }
            rounds.add(new Round(round, Fmt.fmt2(f.otherWorkInRound(round, headline)), cells));
        }
        return new LatencySection(BenchmarkReport.CHART_DIR, rows, added, decisionTimes, Fmt.rate(headline),
                f.results().machine().cpus(), targets, rounds, f.plan().latencyRun().toSeconds());
    }

    /** A target's p99 in one round; a limiter's also with what it added over that round's no-limiter run. */
    private static String cell(Figures f, String target, double rate, int round) {
        Optional<LatencyRun> run = f.run(target, rate, round);
        Optional<LatencyRun> base = f.run(NO_LIMITER, rate, round);
        String cell = run.map(x -> Fmt.fmt2(x.result().percentileMillis(99))).orElse("n/a");
        if (run.isPresent() && base.isPresent() && (target.equals(TOLLGATE) || target.equals(BUILT_IN))) {
            cell += " (" + Fmt.ms(run.get().result().percentileMillis(99) - base.get().result().percentileMillis(99)) + ")";
        }
        return cell;
    }
}
