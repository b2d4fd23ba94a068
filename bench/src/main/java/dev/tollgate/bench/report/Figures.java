package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.NO_LIMITER;
import static dev.tollgate.bench.report.Targets.TOLLGATE;

import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.bench.metrics.TimeHistogram;
import dev.tollgate.bench.scenario.ClusterAccuracy;
import dev.tollgate.bench.scenario.LatencyRun;
import dev.tollgate.bench.scenario.Median;
import dev.tollgate.bench.scenario.RedisMemoryPerBucket;
import dev.tollgate.bench.scenario.Saturation;
import dev.tollgate.bench.suite.SuitePlan;
import dev.tollgate.bench.suite.SuiteResults;
import dev.tollgate.testkit.CommandCounts;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.function.Function;

/**
 * The report's arithmetic over one run of the suite. Every figure is a median over repetitions;
 * added latencies are medians of differences taken within one round (same rate, same minute), not
 * differences of medians.
 */
record Figures(SuiteResults results) {

    SuitePlan plan() {
        return results.plan();
    }

    List<LatencyRun> runs(String target, double rate) {
        return results.latency().stream()
                .filter(r -> r.target().equals(target) && r.rate() == rate)
                .toList();
    }

    Optional<LatencyRun> run(String target, double rate, int round) {
        return runs(target, rate).stream().filter(r -> r.repetition() == round).findFirst();
    }

    double medianLatency(String target, double rate, double percentile) {
        return Median.of(runs(target, rate).stream().map(r -> r.result().percentileMillis(percentile)).toList());
    }

    /** Per round: the target's percentile minus the no-limiter's in the same round. */
    List<Double> addedPerRound(String target, double rate, double percentile) {
        List<Double> added = new ArrayList<>();
        for (LatencyRun run : runs(target, rate)) {
            run(NO_LIMITER, rate, run.repetition()).ifPresent(base -> added.add(
                    run.result().percentileMillis(percentile) - base.result().percentileMillis(percentile)));
        }
        return added;
    }

    double medianAdded(String target, double rate, double percentile) {
        return Median.of(addedPerRound(target, rate, percentile));
    }

    /**
     * Median over the rounds of Tollgate's own decision time at {@code percentile}, as the gateway
     * timed it ({@code tollgate_decision_duration_seconds}): the upper bound of its histogram bucket.
     */
    double medianDecisionTime(double rate, double percentile) {
        return Median.of(decisionTimePerRound(rate, percentile));
    }

    /** Per round: Tollgate's own decision time at {@code percentile} (bucket upper bound, ms). */
    List<Double> decisionTimePerRound(double rate, double percentile) {
        return perRound(rate, percentile, LatencyRun::decisionTimes);
    }

    /**
     * Median over the rounds of Tollgate's Redis call time at {@code percentile}, from a call being
     * written until its reply is read ({@code tollgate_redis_latency_seconds}): bucket upper bound, ms.
     */
    double medianRedisCallTime(double rate, double percentile) {
        return Median.of(perRound(rate, percentile, LatencyRun::redisCallTimes));
    }

    /** Per round: {@code percentile} of one of Tollgate's histograms (bucket upper bound, ms); rounds without one left out. */
    private List<Double> perRound(double rate, double percentile, Function<LatencyRun, TimeHistogram> histogram) {
        return runs(TOLLGATE, rate).stream().map(histogram).filter(h -> h.count() > 0)
                .map(h -> h.percentileUpperBoundMillis(percentile)).toList();
    }

    /** The latency runs' rates, and the one the latency target is judged at. */
    List<Double> rates() {
        return results.rates();
    }

    double headlineRate() {
        return results.headlineRate();
    }

    /** Median completed requests per second at saturation with many cold tenants. */
    double medianThroughput(String target) {
        return medianThroughput(target, Saturation.COLD);
    }

    double medianThroughput(String target, String mix) {
        return medianOfSaturation(target, mix, r -> r.result().achievedRate());
    }

    List<Saturation.Run> saturationRuns(String target, String mix) {
        return results.saturation().stream().filter(r -> r.target().equals(target) && r.mix().equals(mix)).toList();
    }

    double medianOfSaturation(String target, String mix, ToDoubleFunction<Saturation.Run> f) {
        return Median.of(saturationRuns(target, mix).stream().map(r -> f.applyAsDouble(r)).toList());
    }

    /** How one Tollgate gateway decided at saturation with one mix, summed over its runs. */
    DecisionSplit saturationDecisions(String target, String mix) {
        DecisionSplit sum = DecisionSplit.NONE;
        for (Saturation.Run r : saturationRuns(target, mix)) {
            sum = sum.plus(r.decisions());
        }
        return sum;
    }

    /** Tollgate's decisions at saturation, summed over every run of every mix. */
    DecisionSplit tollgateSaturationDecisions() {
        DecisionSplit sum = DecisionSplit.NONE;
        for (Saturation.Run r : results.saturation()) {
            if (r.target().equals(Targets.TOLLGATE)) {
                sum = sum.plus(r.decisions());
            }
        }
        return sum;
    }

    double medianOverRuns(String target, ToDoubleFunction<LatencyRun> f) {
        return Median.of(results.latency().stream().filter(r -> r.target().equals(target))
                .map(r -> f.applyAsDouble(r)).toList());
    }

    double otherWorkMedian() {
        return Median.of(results.latency().stream().map(LatencyRun::otherWorkCores).toList());
    }

    double otherWorkMax() {
        return results.latency().stream().mapToDouble(LatencyRun::otherWorkCores).filter(v -> !Double.isNaN(v))
                .max().orElse(Double.NaN);
    }

    /** Cores other work used during a round's runs at one rate (mean over the targets' runs). */
    double otherWorkInRound(int round, double rate) {
        return results.latency().stream().filter(r -> r.repetition() == round && r.rate() == rate)
                .mapToDouble(LatencyRun::otherWorkCores).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
    }

    /** Latency rounds actually made. */
    int rounds() {
        return results.latency().stream().mapToInt(LatencyRun::repetition).max().orElse(0);
    }

    Optional<ClusterAccuracy.Result> accuracyOf(String limiter) {
        return results.accuracy().stream().filter(a -> a.limiter().equals(limiter)).findFirst();
    }

    Optional<RedisMemoryPerBucket.Result> memoryOf(String limiter) {
        return results.memory().stream().filter(m -> m.limiter().equals(limiter)).findFirst();
    }

    /** "112 µs": a JMH mean, or "n/a" if the benchmark did not run. */
    String microScore(String benchmark) {
        return results.micro().stream().filter(m -> m.benchmark().equals(benchmark)).findFirst()
                .map(m -> String.format(Locale.ROOT, "%.0f %s", m.score(), m.unit().replace("us/op", "µs")))
                .orElse("n/a");
    }

    static double scriptCallsPerRequest(LatencyRun run) {
        return (double) run.redisCommands().scriptCalls() / Math.max(1, run.result().responses());
    }

    static double commandsPerRequest(LatencyRun run) {
        CommandCounts c = run.redisCommands();
        return (double) c.total() / Math.max(1, run.result().responses());
    }
}
