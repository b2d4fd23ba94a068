package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.ClosedLoopLoad;
import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.load.OpenLoopLoad;
import dev.tollgate.bench.load.RequestMix;
import dev.tollgate.bench.machine.CpuActivity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A bogus-key flood beside a well-keyed client: what the client's latency becomes while
 * many connections from another address send keys that were never issued, on a gateway with the
 * failed-authentication limit and on one without it.
 *
 * <p>The well-keyed client sends at a fixed rate (open loop, latency from each request's due time),
 * from 127.0.0.1. The flood keeps one request in flight on each of its connections (closed loop,
 * as fast as the gateway answers), from another loopback address (127.0.0.2), so that it is another
 * client address to the gateway and its failures are not the client's; it starts a ramp-up before the
 * client's run and stops when that run's schedule ends. Each round runs every gateway with and without
 * the flood, in an order that rotates, so both sides of a comparison share the same minutes of this
 * noisy machine. Bounded: the flood lasts one run at a time, on 127.0.0.1 only.
 */
public final class AuthFailureFlood {

    /**
     * A gateway under test: {@code victim} and {@code flood} are two clients of it (the flood's with
     * its own connections and source address), {@code pid} its process (for its CPU time).
     */
    public record Gateway(String name, HttpTarget victim, HttpTarget flood, long pid) {
    }

    /**
     * One run of the well-keyed client, with or without the flood.
     *
     * @param flood            what the flood got (null without one): its 401s are {@code otherStatus},
     *                         its 429s {@code limited}
     * @param gatewayCpuMillis the gateway process's CPU time during the client's run
     */
    public record Run(String gateway, int round, boolean flooded, LoadResult victim, LoadResult flood,
                      double gatewayCpuMillis, double otherWorkCores) {

        /**
         * The gateway's CPU per answer it gave during the run (the client's and the flood's), in
         * microseconds. The flood's count is that of its measured window, which starts with the
         * client's run and ends with its schedule: the two windows differ by the client's last answers.
         */
        public double cpuMicrosPerAnswer() {
            long answers = victim.responses() + (flood == null ? 0 : flood.responses());
            return answers == 0 ? Double.NaN : gatewayCpuMillis * 1000 / answers;
        }

        /** The gateway's CPU over the run, in cores (of the machine's 2). */
        public double gatewayCores() {
            return gatewayCpuMillis / 1000 / victim.seconds();
        }
    }

    /** How the runs are sized. */
    public record Plan(double victimRate, int floodConnections, Duration floodRampUp, Duration run, Duration drain,
                       int rounds) {
    }

    private final List<Gateway> gateways;
    private final Progress progress;
    private final Runnable beforeEachRun;

    public AuthFailureFlood(List<Gateway> gateways, Progress progress, Runnable beforeEachRun) {
        this.gateways = List.copyOf(gateways);
        this.progress = progress;
        this.beforeEachRun = beforeEachRun;
    }

    public List<Run> run(RequestMix victimMix, RequestMix floodMix, Plan plan) {
        // One unrecorded flooded run of each gateway first: the warm-up served keys, not failures, so the
        // 401 and 429 paths (and the flood's 1,000 connections) would otherwise be compiled and opened in round 1.
        for (Gateway gateway : gateways) {
            beforeEachRun.run();
            Run settling = one(gateway, 0, true, victimMix, floodMix, plan);
            progress.say("flood settling %s: client p99=%.2fms, flood %.0f req/s (not recorded)", gateway.name(),
                    settling.victim().percentileMillis(99), settling.flood().achievedRate());
            LatencyAtFixedRates.settle();
        }
        List<Run> runs = new ArrayList<>();
        for (int round = 1; round <= plan.rounds(); round++) {
            for (Gateway gateway : LatencyAtFixedRates.rotated(gateways, round)) {
                // Which comes first alternates too: a flood's after-effects (GC, the JIT) land on the quiet run
                // in one round and not in the next.
                for (boolean flooded : round % 2 == 1 ? List.of(false, true) : List.of(true, false)) {
                    beforeEachRun.run();
                    Run run = one(gateway, round, flooded, victimMix, floodMix, plan);
                    progress.say("flood %s round %d %s: client p50=%.2fms p99=%.2fms errors=%d; gateway %.2f cores%s",
                            gateway.name(), round, flooded ? "flooded" : "quiet", run.victim().percentileMillis(50),
                            run.victim().percentileMillis(99), run.victim().errors(), run.gatewayCores(),
                            run.flood() == null ? "" : String.format("; flood %.0f req/s, 401=%d 429=%d errors=%d",
                                    run.flood().achievedRate(), run.flood().otherStatus(), run.flood().limited(),
                                    run.flood().errors()));
                    runs.add(run);
                    LatencyAtFixedRates.settle();
                }
            }
        }
        return runs;
    }

    private Run one(Gateway gateway, int round, boolean flooded, RequestMix victimMix, RequestMix floodMix, Plan plan) {
        CpuActivity.Snapshot before = CpuActivity.snapshot();
        ClosedLoopLoad.Window flood = null;
        if (flooded) {
            flood = new ClosedLoopLoad(gateway.flood(), floodMix)
                    .start(plan.floodConnections(), plan.floodRampUp(), plan.run());
            flood.awaitMeasuredStart();
        }
        double cpuBefore = cpuMillis(gateway.pid());
        LoadResult victim = new OpenLoopLoad(gateway.victim(), victimMix).run(plan.victimRate(), plan.run(), plan.drain());
        double cpu = cpuMillis(gateway.pid()) - cpuBefore;
        LoadResult floodResult = flood == null ? null : flood.result();
        return new Run(gateway.name(), round, flooded, victim, floodResult, cpu,
                CpuActivity.snapshot().otherWorkCoresSince(before));
    }

    private static double cpuMillis(long pid) {
        return ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration()).map(d -> d.toNanos() / 1e6)
                .orElse(Double.NaN);
    }

    /** The median over rounds of a figure of the runs of one gateway, flooded or not. */
    public static double median(List<Run> runs, String gateway, boolean flooded, java.util.function.ToDoubleFunction<Run> f) {
        return Median.of(runs.stream().filter(r -> r.gateway().equals(gateway) && r.flooded() == flooded)
                .map(r -> f.applyAsDouble(r)).toList());
    }

    /**
     * The median over rounds of (flooded ÷ quiet) of a figure, each ratio taken within one round: the
     * two runs of a round share its minutes of the machine, two rounds do not.
     */
    public static double medianRatio(List<Run> runs, String gateway, java.util.function.ToDoubleFunction<Run> f) {
        List<Double> ratios = new ArrayList<>();
        for (Run flooded : runs) {
            if (!flooded.gateway().equals(gateway) || !flooded.flooded()) {
                continue;
            }
            runs.stream().filter(q -> q.gateway().equals(gateway) && !q.flooded() && q.round() == flooded.round())
                    .findFirst().ifPresent(q -> ratios.add(f.applyAsDouble(flooded) / f.applyAsDouble(q)));
        }
        return Median.of(ratios);
    }
}
