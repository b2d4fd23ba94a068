package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.ClosedLoopLoad;
import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.load.RequestMix;
import dev.tollgate.bench.machine.CpuActivity;
import dev.tollgate.bench.metrics.DecisionCounters;
import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.testkit.CommandCounts;
import dev.tollgate.bench.redis.RedisStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Every target at its limit, side by side: a fixed number of requests always in flight (closed
 * loop), so each target completes as many as it can, repeated in a rotating order, for each request
 * mix (many cold tenants; one hot tenant). On this machine the load generator, the upstream, Redis
 * and the gateway share the same cores, so this is the throughput of the whole set-up at saturation,
 * where a gateway lives at peak; the direct-to-upstream figure shows the ceiling the generator and
 * upstream alone leave.
 *
 * <p>Besides requests per second, each run records the gateway process's CPU time (from the
 * operating system, so every thread counts: HTTP, Redis I/O, GC, JIT), Redis's commands and CPU
 * time, and for Tollgate how its instances decided (Redis, lease, local fallback) from its own
 * counters.
 */
public final class Saturation {

    /** A load target; {@code pid} is the gateway's process (none for the upstream reached directly). */
    public record Target(HttpTarget http, OptionalLong pid, DecisionCounters counters) {
    }

    /** A request mix with the name the report gives it. */
    public record Mix(String name, RequestMix requests) {
    }

    /**
     * One closed-loop run of one target with one mix.
     *
     * @param gatewayCpuMillis CPU time the gateway process used during the run (NaN for the direct target)
     * @param decisions        how Tollgate decided ({@link DecisionSplit#NONE} for other targets)
     * @param redisCommands    commands Redis executed during the run (all clients), by command
     * @param redisCpuMillis   CPU time Redis used during the run
     * @param scriptMicros     time Redis spent inside scripts during the run ({@code usec} of
     *                         {@code EVALSHA} and {@code EVAL} in {@code INFO commandstats})
     */
    public record Run(String mix, int repetition, String target, LoadResult result, double otherWorkCores,
                      double gatewayCpuMillis, DecisionSplit decisions, CommandCounts redisCommands,
                      double redisCpuMillis, double scriptMicros) {

        /** A run without the process and Redis figures (tests). */
        public Run(int repetition, String target, LoadResult result, double otherWorkCores) {
            this(COLD, repetition, target, result, otherWorkCores, Double.NaN, DecisionSplit.NONE,
                    new CommandCounts(java.util.Map.of()), Double.NaN, Double.NaN);
        }

        /** Gateway CPU per completed request, in microseconds (NaN without a gateway). */
        public double cpuMicrosPerRequest() {
            return result.responses() == 0 ? Double.NaN : gatewayCpuMillis * 1000 / result.responses();
        }

        /** Script calls ({@code EVALSHA}, {@code EVAL}) per 1,000 completed requests: round trips to Redis. */
        public double scriptCallsPerThousand() {
            return result.responses() == 0 ? Double.NaN : redisCommands.scriptCalls() * 1000.0 / result.responses();
        }

        /** Time inside Redis per script call, in microseconds (NaN without script calls). */
        public double scriptMicrosPerCall() {
            long calls = redisCommands.scriptCalls();
            return calls == 0 ? Double.NaN : scriptMicros / calls;
        }

        /**
         * Time inside Redis's scripts per completed request, in microseconds: the Redis work a decision
         * costs, with several requests' decisions sharing one call when the gateway batches them.
         */
        public double scriptMicrosPerRequest() {
            return result.responses() == 0 ? Double.NaN : scriptMicros / result.responses();
        }

        /** Redis CPU per 1,000 completed requests, in milliseconds. */
        public double redisCpuMillisPerThousand() {
            return result.responses() == 0 ? Double.NaN : redisCpuMillis * 1000.0 / result.responses();
        }
    }

    /** Name of the mix of many cold tenants, the one the headline throughput is taken from. */
    public static final String COLD = "cold";
    /** Name of the mix of one hot tenant. */
    public static final String HOT = "hot";

    private final List<Target> targets;
    private final RedisStats redis;
    private final Progress progress;
    private final Runnable beforeEachRun;

    /** {@code beforeEachRun} checks the servers are still up (it throws if not). */
    public Saturation(List<Target> targets, RedisStats redis, Progress progress, Runnable beforeEachRun) {
        this.targets = List.copyOf(targets);
        this.redis = redis;
        this.progress = progress;
        this.beforeEachRun = beforeEachRun;
    }

    /**
     * One unrecorded round of every target with every mix, first: the JVMs are still compiling
     * after their warm-up, and the first recorded round would otherwise measure the JIT (the
     * no-limiter gateway went from 1,738 to 7,866 req/s over three rounds in a run without it).
     */
    public void settle(List<Mix> mixes, int concurrency, Duration length) {
        for (Mix mix : mixes) {
            for (Target target : targets) {
                beforeEachRun.run();
                LoadResult r = new ClosedLoopLoad(target.http(), mix.requests()).run(concurrency, Duration.ZERO, length);
                progress.say("saturation settling %s %s: %.0f req/s (not recorded)", mix.name(), target.http().name(),
                        r.achievedRate());
            }
        }
    }

    public List<Run> run(List<Mix> mixes, int repetitions, int concurrency, Duration rampUp, Duration measured) {
        List<Run> runs = new ArrayList<>();
        for (int rep = 1; rep <= repetitions; rep++) {
            for (Mix mix : mixes) {
                for (Target target : LatencyAtFixedRates.rotated(targets, rep)) {
                    beforeEachRun.run();
                    runs.add(one(mix, rep, target, concurrency, rampUp, measured));
                    LatencyAtFixedRates.settle();
                }
            }
        }
        return runs;
    }

    private Run one(Mix mix, int rep, Target target, int concurrency, Duration rampUp, Duration measured) {
        CpuActivity.Snapshot cpuBefore = CpuActivity.snapshot();
        DecisionCounters.Snapshot decisionsBefore = target.counters().snapshot();
        ClosedLoopLoad load = new ClosedLoopLoad(target.http(), mix.requests());
        // The gateway's and Redis's counters are read at the edges of the measured window.
        ClosedLoopLoad.Window window = load.start(concurrency, rampUp, measured);
        window.awaitMeasuredStart();
        double gatewayCpuBefore = processCpuMillis(target.pid());
        CommandCounts commandsBefore = redis.commandCounts();
        double redisCpuBefore = redis.cpuMillis();
        long scriptMicrosBefore = redis.scriptMicros();
        window.awaitMeasuredEnd();
        double gatewayCpu = processCpuMillis(target.pid()) - gatewayCpuBefore;
        CommandCounts commands = redis.commandCounts().since(commandsBefore);
        double redisCpu = redis.cpuMillis() - redisCpuBefore;
        long scriptMicros = redis.scriptMicros() - scriptMicrosBefore;
        LoadResult result = window.result();
        DecisionSplit decisions = target.counters().snapshot().since(decisionsBefore);
        double otherWork = CpuActivity.snapshot().otherWorkCoresSince(cpuBefore);
        Run run = new Run(mix.name(), rep, result.target(), result, otherWork, gatewayCpu, decisions, commands, redisCpu,
                scriptMicros);
        progress.say("saturation %s round %d: %s cpu/req=%.0fus scriptCalls/1k=%.0f script=%.1fus/call %.2fus/req"
                        + " %s otherWork=%.2f cores",
                mix.name(), rep, result.summary(), run.cpuMicrosPerRequest(), run.scriptCallsPerThousand(),
                run.scriptMicrosPerCall(), run.scriptMicrosPerRequest(),
                decisions.decisions() > 0 ? decisions.toString() : "", otherWork);
        return run;
    }

    private static double processCpuMillis(OptionalLong pid) {
        if (pid.isEmpty()) {
            return Double.NaN;
        }
        return ProcessHandle.of(pid.getAsLong())
                .flatMap(p -> p.info().totalCpuDuration())
                .map(d -> d.toNanos() / 1e6)
                .orElse(Double.NaN);
    }
}
