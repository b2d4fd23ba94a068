package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.ClosedLoopLoad;
import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.load.RequestMix;
import dev.tollgate.bench.machine.CpuActivity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The most each target completes per second with a fixed number of requests always in flight
 * (closed loop), side by side, repeated in a rotating order. On this machine the load generator,
 * the upstream, Redis and the gateway share the same cores, so this is the throughput of the whole
 * set-up; the direct-to-upstream figure shows the ceiling that the generator and upstream alone
 * leave.
 */
public final class MaxThroughput {

    /** One closed-loop run of one target. */
    public record Run(int repetition, String target, LoadResult result, double otherWorkCores) {
    }

    private final List<HttpTarget> targets;
    private final RequestMix mix;
    private final Progress progress;
    private final Runnable beforeEachRun;

    /** {@code beforeEachRun} checks the servers are still up (it throws if not). */
    public MaxThroughput(List<HttpTarget> targets, RequestMix mix, Progress progress, Runnable beforeEachRun) {
        this.targets = List.copyOf(targets);
        this.mix = mix;
        this.progress = progress;
        this.beforeEachRun = beforeEachRun;
    }

    public List<Run> run(int repetitions, int concurrency, Duration rampUp, Duration measured) {
        List<Run> runs = new ArrayList<>();
        for (int rep = 1; rep <= repetitions; rep++) {
            for (HttpTarget target : LatencyAtFixedRates.rotated(targets, rep)) {
                beforeEachRun.run();
                CpuActivity.Snapshot cpuBefore = CpuActivity.snapshot();
                LoadResult result = new ClosedLoopLoad(target, mix).run(concurrency, rampUp, measured);
                double otherWork = CpuActivity.snapshot().otherWorkCoresSince(cpuBefore);
                runs.add(new Run(rep, target.name(), result, otherWork));
                progress.say("throughput round %d: %s otherWork=%.2f cores", rep, result.summary(), otherWork);
                LatencyAtFixedRates.settle();
            }
        }
        return runs;
    }
}
