package dev.tollgate.bench.scenario;

import dev.tollgate.bench.jmh.DirectoryLoadBenchmark;
import dev.tollgate.bench.jmh.KeyEncodingBenchmark;
import dev.tollgate.bench.jmh.LeaseHitBenchmark;
import dev.tollgate.bench.jmh.LocalDecisionBenchmark;
import dev.tollgate.bench.jmh.RedisRoundTripBenchmark;
import dev.tollgate.bench.jmh.RuleLoadBenchmark;
import dev.tollgate.bench.process.JavaCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH benchmarks of {@code dev.tollgate.bench.jmh}, one fork each, with short iterations
 * so the whole suite fits its time budget: 2 warm-up and 4 measured iterations of 1 s (the decision
 * paths reach steady state within the first second). A single-shot benchmark
 * ({@link DirectoryLoadBenchmark}, about a second per operation) makes as many shots instead. JMH's
 * own output goes to {@code jmh.log} in the run directory.
 */
public final class MicroBenchmarks {

    /** The benchmarks, in the order of the report. */
    static final List<Class<?>> BENCHMARKS = List.of(
            LocalDecisionBenchmark.class,
            LeaseHitBenchmark.class,
            KeyEncodingBenchmark.class,
            RedisRoundTripBenchmark.class,
            RuleLoadBenchmark.class,
            DirectoryLoadBenchmark.class);

    public static final int WARMUP_ITERATIONS = 2;
    public static final int MEASUREMENT_ITERATIONS = 4;

    private MicroBenchmarks() {
    }

    public static List<MicroResult> run(Path runDir, boolean quick) {
        OptionsBuilder options = new OptionsBuilder();
        for (Class<?> benchmark : BENCHMARKS) {
            options.include("^" + benchmark.getName().replace(".", "\\.") + "\\.");
        }
        Options opts = options
                .forks(1)
                .warmupIterations(quick ? 1 : WARMUP_ITERATIONS)
                .warmupTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
                .measurementIterations(quick ? 1 : MEASUREMENT_ITERATIONS)
                .measurementTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
                .jvmArgs(JavaCommand.JVM_OPTIONS.toArray(String[]::new))
                .shouldFailOnError(true)
                .output(runDir.resolve("jmh.log").toString())
                .build();
        Collection<RunResult> results;
        try {
            results = new Runner(opts).run();
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH failed; see " + runDir.resolve("jmh.log"), e);
        }
        List<MicroResult> out = new ArrayList<>();
        for (RunResult r : results) {
            String label = r.getParams().getBenchmark();
            Map<String, String> params = new TreeMap<>();
            for (String key : r.getParams().getParamsKeys()) {
                params.put(key, r.getParams().getParam(key));
            }
            Map<String, Double> counters = new TreeMap<>();
            r.getSecondaryResults().forEach((name, result) -> counters.put(name, result.getScore()));
            out.add(new MicroResult(
                    label.substring(label.lastIndexOf('.', label.lastIndexOf('.') - 1) + 1),
                    params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(", ")),
                    r.getPrimaryResult().getScore(),
                    r.getPrimaryResult().getScoreError(),
                    r.getPrimaryResult().getScoreUnit(),
                    counters));
        }
        out.sort(Comparator.comparingInt(MicroBenchmarks::order));
        return out;
    }

    private static int order(MicroResult result) {
        for (int i = 0; i < BENCHMARKS.size(); i++) {
            if (result.benchmark().startsWith(BENCHMARKS.get(i).getSimpleName() + ".")) {
                return i;
            }
        }
        return BENCHMARKS.size();
    }
}
