package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.metrics.DecisionCounters;
import dev.tollgate.bench.metrics.TimeHistogram;
import dev.tollgate.bench.load.OpenLoopLoad;
import dev.tollgate.bench.load.RequestMix;
import dev.tollgate.testkit.CommandCounts;
import dev.tollgate.bench.redis.RedisStats;
import dev.tollgate.bench.machine.CpuActivity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Latency at fixed request rates, every target side by side: for each repetition and each rate,
 * each target gets one open-loop run, in an order that rotates so that no target always runs first
 * (or last, after the others warmed the caches). A slow spell of the machine thus hits the targets
 * of one round alike, and the added latency is computed within a round.
 *
 * <p>{@code INFO commandstats} is read around every run: Redis is shared, but only one target
 * takes load at a time, so the difference is that run's. So are Tollgate's decision-time histograms
 * (its {@code /actuator/prometheus}), which time the limiter alone, without the machine's noise
 * in the rest of the request.
 */
public final class LatencyAtFixedRates {

    private final List<Saturation.Target> targets;
    private final RequestMix mix;
    private final RedisStats redis;
    private final Progress progress;
    private final Runnable beforeEachRun;

    /** {@code beforeEachRun} checks the servers are still up (it throws if not). */
    public LatencyAtFixedRates(List<Saturation.Target> targets, RequestMix mix, RedisStats redis, Progress progress,
                               Runnable beforeEachRun) {
        this.targets = List.copyOf(targets);
        this.mix = mix;
        this.redis = redis;
        this.progress = progress;
        this.beforeEachRun = beforeEachRun;
    }

    /**
     * Runs {@code minRounds} rounds, then more up to {@code maxRounds} while a round can still start
     * before {@code lastRoundStart} ({@link System#nanoTime()}): on a machine slowed by other work,
     * fewer rounds keep the suite within its time budget.
     */
    public List<LatencyRun> run(List<Double> rates, int minRounds, int maxRounds, long lastRoundStart,
                                Duration duration, Duration drain) {
        List<LatencyRun> runs = new ArrayList<>();
        int round = 0;
        for (int rep = 1; rep <= maxRounds; rep++) {
            if (rep > minRounds && System.nanoTime() > lastRoundStart) {
                progress.say("latency: %d rounds done, no time for more", rep - 1);
                break;
            }
            for (double rate : rates) {
                for (Saturation.Target target : rotated(targets, round++)) {
                    beforeEachRun.run();
                    CommandCounts before = redis.commandCounts();
                    DecisionCounters.Snapshot decisionsBefore = target.counters().snapshot();
                    CpuActivity.Snapshot cpuBefore = CpuActivity.snapshot();
                    LoadResult result = new OpenLoopLoad(target.http(), mix).run(rate, duration, drain);
                    double otherWork = CpuActivity.snapshot().otherWorkCoresSince(cpuBefore);
                    CommandCounts commands = redis.commandCounts().since(before);
                    DecisionCounters.Snapshot decisionsAfter = target.counters().snapshot();
                    runs.add(new LatencyRun(rep, rate, target.http().name(), result, commands, otherWork,
                            decisionsAfter.timesSince(decisionsBefore),
                            decisionsAfter.redisCallTimesSince(decisionsBefore)));
                    progress.say("latency round %d: %s otherWork=%.2f cores", rep, result.summary(), otherWork);
                    settle();
                }
            }
        }
        return runs;
    }

    static <T> List<T> rotated(List<T> items, int by) {
        List<T> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            out.add(items.get((i + by) % items.size()));
        }
        return out;
    }

    /** A short pause between runs, so one run's stragglers and GC do not fall into the next. */
    static void settle() {
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
