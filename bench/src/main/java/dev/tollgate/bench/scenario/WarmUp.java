package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.ClosedLoopLoad;
import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.load.RequestMix;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Load before measuring, until the target has compiled its hot paths (and filled its connection
 * pools and Redis's script cache): at least a number of requests, then until its JIT compiler has
 * gone quiet and its throughput has stopped rising. Neither a fixed time nor a fixed count is
 * enough: how long the JIT takes depends on the machine and on how much code a gateway runs (one
 * with a limiter has more to compile than one without), and a gateway measured while its compiler
 * still works shows compilation, not the gateway. Throughput alone can stall for a few seconds in
 * the middle of compiling and look level, so the compiler's own clock
 * ({@code jvm_compilation_time_ms_total}, read from the gateway) decides where it is available.
 */
public final class WarmUp {

    private static final Duration SLICE = Duration.ofSeconds(2);
    /** Enough in flight to keep a warm gateway busy, so compilation is not waiting for requests. */
    private static final int IN_FLIGHT = 32;
    /** Slices compared: the mean of the last {@value} against the mean of the {@value} before. */
    public static final int WINDOW = 3;
    /** Throughput counts as level once the last slices are at most this much faster than those before. */
    public static final double STEADY_GAIN = 0.05;
    /** The JIT counts as quiet once it compiled at most this share of each of the last slices' time. */
    public static final double QUIET_COMPILATION = 0.05;

    /**
     * How a target's warm-up ended: requests served, the last slices' throughput, the JIT's share of
     * the last slice (NaN if not known), and whether it had settled.
     */
    public record Result(String target, long served, double lastRate, double lastCompilationShare,
                         boolean steady) {

        /** One line for the suite's progress log. */
        public String summary() {
            return String.format(Locale.ROOT, "%d requests, last %.0f req/s, JIT %.0f %% of the last slice, %s",
                    served, lastRate, 100 * lastCompilationShare, steady ? "settled" : "NOT SETTLED at the time limit");
        }
    }

    private WarmUp() {
    }

    /**
     * Serves at least {@code minRequests}, then goes on until the target is warm ({@link #settled}),
     * or until {@code maxTime}, whichever ends first.
     *
     * @param compilationMillis the target's total JIT compilation time so far, when it can be read
     */
    public static Result run(HttpTarget target, RequestMix mix, long minRequests, Duration maxTime,
                             Supplier<OptionalLong> compilationMillis) {
        long deadline = System.nanoTime() + maxTime.toNanos();
        long served = 0;
        List<Double> rates = new ArrayList<>();
        List<Double> compiling = new ArrayList<>();
        OptionalLong before = compilationMillis.get();
        while (System.nanoTime() < deadline) {
            LoadResult slice = new ClosedLoopLoad(target, mix).run(IN_FLIGHT, Duration.ZERO, SLICE);
            served += slice.responses();
            rates.add(slice.achievedRate());
            OptionalLong now = compilationMillis.get();
            if (before.isPresent() && now.isPresent()) {
                compiling.add((now.getAsLong() - before.getAsLong()) / (double) SLICE.toMillis());
            }
            before = now;
            if (served >= minRequests && settled(rates, compiling)) {
                return new Result(target.name(), served, meanOfLast(rates, 0), last(compiling), true);
            }
        }
        return new Result(target.name(), served, rates.isEmpty() ? 0 : meanOfLast(rates, 0), last(compiling), false);
    }

    /**
     * Warm: the throughput has levelled off ({@link #levelledOff}) and, where the JIT's time is
     * known, it compiled at most {@link #QUIET_COMPILATION} of each of the last {@link #WINDOW} slices.
     */
    static boolean settled(List<Double> rates, List<Double> compilationShares) {
        if (!levelledOff(rates)) {
            return false;
        }
        if (compilationShares.isEmpty()) {
            return true;
        }
        if (compilationShares.size() < WINDOW) {
            return false;
        }
        return compilationShares.subList(compilationShares.size() - WINDOW, compilationShares.size()).stream()
                .allMatch(share -> share <= QUIET_COMPILATION);
    }

    /**
     * Whether the mean throughput of the last {@link #WINDOW} slices is at most {@link #STEADY_GAIN}
     * above that of the {@link #WINDOW} slices before them.
     */
    static boolean levelledOff(List<Double> rates) {
        if (rates.size() < 2 * WINDOW) {
            return false;
        }
        return meanOfLast(rates, 0) <= meanOfLast(rates, WINDOW) * (1 + STEADY_GAIN);
    }

    /** Mean of {@link #WINDOW} rates, ending {@code skip} rates before the last. */
    private static double meanOfLast(List<Double> rates, int skip) {
        int end = rates.size() - skip;
        double sum = 0;
        for (int i = end - WINDOW; i < end; i++) {
            sum += rates.get(Math.max(i, 0));
        }
        return sum / WINDOW;
    }

    private static double last(List<Double> values) {
        return values.isEmpty() ? Double.NaN : values.get(values.size() - 1);
    }
}
