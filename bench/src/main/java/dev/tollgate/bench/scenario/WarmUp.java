package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.ClosedLoopLoad;
import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.load.RequestMix;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Load before measuring, until the target has compiled its hot paths (and filled its connection
 * pools and Redis's script cache): at least a number of requests, and then until its throughput
 * stops rising. Neither a fixed time nor a fixed count is enough on its own: how long the JIT takes
 * depends on the machine and on how much code a gateway runs (a gateway with a limiter has more to
 * compile than one without), and a gateway measured while its compiler still works shows
 * compilation, not the gateway, and makes the one with more code look slower than it is.
 */
public final class WarmUp {

    private static final Duration SLICE = Duration.ofSeconds(2);
    /** Enough in flight to keep a warm gateway busy, so compilation is not waiting for requests. */
    private static final int IN_FLIGHT = 32;
    /** Slices compared: the mean of the last {@value} against the mean of the {@value} before. */
    public static final int WINDOW = 3;
    /** Throughput counts as steady once the last slices are at most this much faster than those before. */
    public static final double STEADY_GAIN = 0.05;

    /** How a target's warm-up ended: requests served, the last slices' throughput, whether it had levelled off. */
    public record Result(String target, long served, double lastRate, boolean steady) {
    }

    private WarmUp() {
    }

    /**
     * Serves at least {@code minRequests}, then goes on until the throughput levels off
     * ({@link #levelledOff}), or until {@code maxTime}, whichever ends first.
     */
    public static Result run(HttpTarget target, RequestMix mix, long minRequests, Duration maxTime) {
        long deadline = System.nanoTime() + maxTime.toNanos();
        long served = 0;
        List<Double> rates = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            LoadResult slice = new ClosedLoopLoad(target, mix).run(IN_FLIGHT, Duration.ZERO, SLICE);
            served += slice.responses();
            rates.add(slice.achievedRate());
            if (served >= minRequests && levelledOff(rates)) {
                return new Result(target.name(), served, meanOfLast(rates, 0), true);
            }
        }
        return new Result(target.name(), served, rates.isEmpty() ? 0 : meanOfLast(rates, 0), false);
    }

    /**
     * Whether the mean throughput of the last {@link #WINDOW} slices is at most {@link #STEADY_GAIN}
     * above that of the {@link #WINDOW} slices before them: still compiling, a gateway gains more
     * than that from one few seconds to the next.
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
}
