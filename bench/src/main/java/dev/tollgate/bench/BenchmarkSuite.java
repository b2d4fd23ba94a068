package dev.tollgate.bench;

import dev.tollgate.bench.builtin.BuiltInLimiterScript;
import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.RequestMix;
import dev.tollgate.bench.machine.CpuActivity;
import dev.tollgate.bench.machine.MachineInfo;
import dev.tollgate.bench.metrics.CompilationTime;
import dev.tollgate.bench.metrics.DecisionCounters;
import dev.tollgate.bench.process.BenchRoutes;
import dev.tollgate.bench.process.GatewayProcess;
import dev.tollgate.bench.process.GatewayVariant;
import dev.tollgate.bench.report.BenchmarkReport;
import dev.tollgate.bench.report.Targets;
import dev.tollgate.bench.scenario.ClusterAccuracy;
import dev.tollgate.bench.scenario.CostCurve;
import dev.tollgate.bench.scenario.DirectoryFootprint;
import dev.tollgate.bench.scenario.HotKeyCost;
import dev.tollgate.bench.scenario.LatencyAtFixedRates;
import dev.tollgate.bench.scenario.LatencyRun;
import dev.tollgate.bench.scenario.Median;
import dev.tollgate.bench.scenario.MicroBenchmarks;
import dev.tollgate.bench.scenario.MicroResult;
import dev.tollgate.bench.scenario.ParallelBurst;
import dev.tollgate.bench.scenario.Progress;
import dev.tollgate.bench.scenario.RedisMemoryPerBucket;
import dev.tollgate.bench.scenario.Saturation;
import dev.tollgate.bench.scenario.VariantCheck;
import dev.tollgate.bench.scenario.WarmUp;
import dev.tollgate.bench.suite.SuitePlan;
import dev.tollgate.bench.suite.SuiteResults;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import reactor.netty.resources.LoopResources;

/**
 * The whole benchmark suite, run by {@code bench/run.sh}: JMH micro-benchmarks, then the scenarios
 * against real processes (Redis, upstream, gateways), then {@code docs/benchmarks.md} and its charts.
 *
 * <p>Usage: {@code BenchmarkSuite <project root>}; the gateway jar must have been built.
 */
public final class BenchmarkSuite {

    static final String GATEWAY_JAR = "gateway/target/tollgate-gateway-0.1.0-SNAPSHOT-exec.jar";

    /** Other work below half a core counts as quiet enough to start. */
    private static final double QUIET_BELOW_CORES = 0.5;

    private final Path root;
    private final SuitePlan plan;
    private final boolean quick;
    private final Progress progress = new Progress();

    BenchmarkSuite(Path root, boolean quick) {
        this.root = root;
        this.quick = quick;
        this.plan = quick ? SuitePlan.quick() : SuitePlan.standard();
    }

    public static void main(String[] args) {
        Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        int status = 0;
        try {
            Path report = new BenchmarkSuite(root, Boolean.getBoolean("bench.quick")).run();
            System.out.println("Report written to " + report);
        } catch (RuntimeException e) {
            e.printStackTrace();
            status = 1;
        }
        // Every server is stopped by now; exit even if a library left a non-daemon thread behind.
        System.exit(status);
    }

    Path run() {
        Path runDir = root.resolve("bench/target/bench-run");
        Path gatewayJar = root.resolve(GATEWAY_JAR);
        awaitQuiet("JMH", Duration.ofSeconds(20));
        progress.say("JMH micro-benchmarks (log: %s)", runDir.resolve("jmh.log"));
        List<MicroResult> micro = MicroBenchmarks.run(runDir, quick);
        micro.forEach(m -> progress.say("  %s %s: %.3f ± %.3f %s", m.benchmark(), m.params(), m.score(), m.error(),
                m.unit()));

        List<DirectoryFootprint.Result> directories = new ArrayList<>();
        for (String directory : List.of("rules", "plans")) {
            DirectoryFootprint.Result d = DirectoryFootprint.measure(directory);
            progress.say("directory %s: snapshot retains %.1f MB of heap; first load in this JVM %.0f ms", directory,
                    d.retainedBytes() / 1e6, d.firstLoadMillis());
            directories.add(d);
        }

        progress.say("starting redis-server, upstream and gateways (logs: %s)", runDir.resolve("logs"));
        try (BenchEnvironment env = BenchEnvironment.start(runDir, gatewayJar)) {
            MachineInfo machine = MachineInfo.collect(env.redisStats().version());
            Map<String, GatewayVariant> names = new LinkedHashMap<>();
            for (GatewayVariant variant : GatewayVariant.values()) {
                names.put(variant.id(), variant);
            }
            List<GatewayProcess> gateways = env.startGateways(names);
            progress.say("gateways ready");
            double otherWork = awaitQuiet("the load runs", Duration.ofSeconds(6));

            LoopResources loops = LoopResources.create("bench-load", 2, true);
            List<HttpTarget> targets = new ArrayList<>();
            List<Saturation.Target> saturationTargets = new ArrayList<>();
            try {
                HttpTarget direct = new HttpTarget(Targets.DIRECT, env.upstreamUrl(), loops, Duration.ofSeconds(5));
                targets.add(direct);
                saturationTargets.add(new Saturation.Target(direct, OptionalLong.empty(), DecisionCounters.none()));
                HttpTarget tollgate = null;
                HttpTarget builtIn = null;
                // The three-limit gateway runs in the saturation scenario only (issue 22), then stops:
                // the latency runs and the cluster runs compare the others, as before.
                List<Saturation.Target> latencyTargets = new ArrayList<>(saturationTargets);
                List<HttpTarget> warmed = new ArrayList<>(targets);
                List<GatewayProcess> saturationOnly = new ArrayList<>();
                for (GatewayProcess gateway : gateways) {
                    HttpTarget target = new HttpTarget(gateway.variant().label(), gateway.baseUrl(), loops,
                            Duration.ofSeconds(5));
                    VariantCheck.verify(target, gateway.variant());
                    warmed.add(target);
                    boolean isTollgate = gateway.variant() == GatewayVariant.TOLLGATE
                            || gateway.variant() == GatewayVariant.TOLLGATE_THREE_LIMITS;
                    Saturation.Target measured = new Saturation.Target(target, OptionalLong.of(gateway.process().pid()),
                            isTollgate ? new DecisionCounters(List.of(target)) : DecisionCounters.none());
                    saturationTargets.add(measured);
                    if (gateway.variant() == GatewayVariant.TOLLGATE_THREE_LIMITS) {
                        saturationOnly.add(gateway);
                        continue;
                    }
                    targets.add(target);
                    latencyTargets.add(measured);
                    if (gateway.variant() == GatewayVariant.TOLLGATE) {
                        tollgate = target;
                    } else if (gateway.variant() == GatewayVariant.BUILT_IN) {
                        builtIn = target;
                    }
                }
                RequestMix mix = new RequestMix(BenchRoutes.BENCH_PATH, "tenant-", plan.latencyTenants());
                List<WarmUp.Result> warmUps = new ArrayList<>();
                for (HttpTarget target : warmed) {
                    boolean isDirect = target.name().equals(Targets.DIRECT);
                    WarmUp.Result warm = WarmUp.run(target, mix, plan.warmUpRequests(),
                            isDirect ? plan.warmUpMaxTime().dividedBy(5) : plan.warmUpMaxTime(),
                            isDirect ? CompilationTime.unknown() : CompilationTime.of(target));
                    warmUps.add(warm);
                    progress.say("warm-up %s: %s", target.name(), warm.summary());
                }

                List<Saturation.Mix> mixes = List.of(new Saturation.Mix(Saturation.COLD, mix),
                        new Saturation.Mix(Saturation.HOT, RequestMix.singleTenant(BenchRoutes.BENCH_PATH, "hot-tenant")));
                Saturation saturating = new Saturation(saturationTargets, env.redisStats(), progress, env::requireAllAlive);
                saturating.settle(mixes, plan.saturationConcurrency(), plan.saturationRun());
                List<Saturation.Run> saturation = saturating.run(mixes, plan.saturationRepetitions(),
                        plan.saturationConcurrency(), plan.saturationRampUp(), plan.saturationRun());
                env.stopGateways(saturationOnly);
                double capacity = Median.of(saturation.stream()
                        .filter(r -> r.mix().equals(Saturation.COLD) && r.target().equals(Targets.NO_LIMITER))
                        .map(r -> r.result().achievedRate()).toList());
                List<Double> rates = plan.rateShares().stream().map(share -> roundedRate(share * capacity)).toList();
                double headlineRate = roundedRate(plan.headlineShare() * capacity);
                progress.say("no-limiter capacity %.0f req/s: latency runs at %s req/s", capacity, rates);

                List<LatencyRun> latency = new LatencyAtFixedRates(latencyTargets, mix, env.redisStats(), progress,
                        env::requireAllAlive)
                        .run(rates, plan.minRounds(), plan.maxRounds(),
                                progress.startNanos() + plan.lastRoundStart().toNanos(), plan.latencyRun(), plan.drain());
                List<ParallelBurst.Result> burst = new ArrayList<>();
                burst.add(burst(Targets.TOLLGATE, tollgate, new DecisionCounters(List.of(tollgate))));
                burst.add(burst(Targets.BUILT_IN, builtIn, DecisionCounters.none()));
                List<HotKeyCost.Result> hotKey = new ArrayList<>();
                List<ClusterAccuracy.Result> accuracy = accuracy(env, gateways, loops, hotKey);

                env.stopGateways(gateways);
                List<RedisMemoryPerBucket.Result> memory = memory(env, gatewayJar);
                List<CostCurve.Point> costCurve = new CostCurve(env.redis().host(), env.redis().port(),
                        env.redisStats(), progress)
                        .run(plan.costTenants(), plan.costInstances(), plan.costRate(), plan.costRun());

                SuiteResults results = new SuiteResults(machine, otherWork, MachineInfo.loadAverage(), progress.elapsed(),
                        plan, targets.stream().map(HttpTarget::name).toList(),
                        saturationTargets.stream().map(t -> t.http().name()).toList(), rates, headlineRate, micro, latency,
                        warmUps, saturation, accuracy, memory, hotKey, burst, costCurve,
                        directories);
                // A quick run proves the suite works; its figures must not replace the real report.
                return BenchmarkReport.write(results, quick ? runDir.resolve("docs") : root.resolve("docs"));
            } finally {
                targets.forEach(HttpTarget::close);
                saturationTargets.stream().map(Saturation.Target::http).filter(t -> !targets.contains(t))
                        .forEach(HttpTarget::close);
                loops.disposeLater().block(Duration.ofSeconds(5));
            }
        }
    }

    /** A rate rounded to a hundred requests per second (at least 100). */
    private static double roundedRate(double rate) {
        return Math.max(100, Math.round(rate / 100) * 100.0);
    }

    private ParallelBurst.Result burst(String limiter, HttpTarget target, DecisionCounters counters) {
        ParallelBurst.Result r = ParallelBurst.run(limiter, target, counters, BenchRoutes.BURST_PATH,
                BenchRoutes.BURST_TENANT, plan.burstRequests(), plan.burstClients(), BenchRoutes.BURST_CAPACITY,
                BenchRoutes.BURST_RATE);
        progress.say("parallel burst %s: %d requests from %d clients admitted %d (bound %.1f), %d errors; %s",
                limiter, r.requests(), r.clients(), r.admitted(), r.bound(), r.errors(), r.decisions());
        return r;
    }

    /**
     * Other builds and tests share this machine. Waits a little (at most {@code maxWait}) for them
     * to leave the CPUs alone, and says how busy they were: that noise is in the figures.
     */
    private double awaitQuiet(String before, Duration maxWait) {
        double cores = CpuActivity.awaitQuiet(QUIET_BELOW_CORES, maxWait);
        progress.say("cores used by other work before %s: %.2f", before, cores);
        return cores;
    }

    /**
     * Adds instances to the Tollgate and built-in gateways already running, then loads each cluster;
     * the Tollgate cluster also serves the hot-key run, whose result goes to {@code hotKey}.
     */
    private List<ClusterAccuracy.Result> accuracy(BenchEnvironment env, List<GatewayProcess> running,
                                                  LoopResources loops, List<HotKeyCost.Result> hotKey) {
        int extra = plan.accuracyInstances() - 1;
        List<GatewayVariant> limiters = progress.elapsed().compareTo(plan.builtInAccuracyBy()) <= 0
                ? List.of(GatewayVariant.TOLLGATE, GatewayVariant.BUILT_IN)
                : List.of(GatewayVariant.TOLLGATE);
        Map<String, GatewayVariant> extras = new LinkedHashMap<>();
        for (int i = 2; i <= plan.accuracyInstances(); i++) {
            for (GatewayVariant limiter : limiters) {
                extras.put(limiter.id() + "-" + i, limiter);
            }
        }
        progress.say("accuracy: starting %d more instances of %s", extra, limiters);
        List<GatewayProcess> added = env.startGateways(extras);
        List<ClusterAccuracy.Result> results = new ArrayList<>();
        try {
            // Each added instance is warmed up as the first ones were (on the other route: its buckets
            // are not the accuracy tenant's). A JVM still compiling pushes Redis calls past the cut-off
            // on 2 cores, and the local fallback then decides: earlier reports, whose added instances
            // had only 3,000 requests of warm-up, measured that mix (up to 1.21 × the limit, and a hot
            // key at 1 call per 7 admitted), not the Redis path.
            RequestMix warmUpMix = new RequestMix(BenchRoutes.BENCH_PATH, "tenant-", plan.latencyTenants());
            for (GatewayProcess g : added) {
                HttpTarget target = new HttpTarget(g.name(), g.baseUrl(), loops, Duration.ofSeconds(5));
                try {
                    // Accuracy counts admissions, not speed: a short warm-up is enough.
                    WarmUp.Result warm = WarmUp.run(target, warmUpMix, plan.warmUpRequests(),
                            plan.warmUpMaxTime().dividedBy(5), CompilationTime.of(target));
                    progress.say("warm-up %s: %s", g.name(), warm.summary());
                } finally {
                    target.close();
                }
            }
            for (GatewayVariant variant : limiters) {
                List<HttpTarget> cluster = new ArrayList<>();
                for (GatewayProcess g : concat(running, added)) {
                    if (g.variant() == variant) {
                        cluster.add(new HttpTarget(g.name(), g.baseUrl(), loops, Duration.ofSeconds(5)));
                    }
                }
                try {
                    env.requireAllAlive();
                    DecisionCounters counters = variant == GatewayVariant.TOLLGATE
                            ? new DecisionCounters(cluster) : DecisionCounters.none();
                    ClusterAccuracy.Result result = ClusterAccuracy.run(variant.label(), cluster, counters,
                            plan.accuracyRate(), plan.accuracyRun());
                    progress.say("accuracy %s: %d instances admitted %d of limit %.0f (%.3f); %s", result.limiter(),
                            result.instances(), result.admitted(), result.limit(), result.admittedOverLimit(),
                            result.decisions());
                    results.add(result);
                    if (variant == GatewayVariant.TOLLGATE) {
                        HotKeyCost.Result hot = HotKeyCost.run(cluster, counters, env.redisStats(),
                                plan.hotKeyRate(), plan.hotKeyRun());
                        progress.say("hot key: %d instances, %d admitted of %d, %d Redis script calls (%.4f per admitted); %s",
                                hot.instances(), hot.admitted(), hot.sent(), hot.scriptCalls(), hot.callsPerAdmitted(),
                                hot.decisions());
                        hotKey.add(hot);
                    }
                } finally {
                    cluster.forEach(HttpTarget::close);
                }
            }
        } finally {
            env.stopGateways(added);
        }
        return results;
    }

    private List<RedisMemoryPerBucket.Result> memory(BenchEnvironment env, Path gatewayJar) {
        RedisMemoryPerBucket memory = new RedisMemoryPerBucket(env.redis().host(), env.redis().port(),
                env.redisStats());
        List<RedisMemoryPerBucket.Result> results = new ArrayList<>();
        results.add(memory.tollgate(plan.memoryTenants(), plan.memoryRoutes()));
        results.add(memory.builtIn(BuiltInLimiterScript.readFrom(gatewayJar), plan.memoryTenants(),
                plan.memoryRoutes()));
        results.forEach(r -> progress.say("memory %s: %d buckets, %d keys, %.0f B per bucket (%.1f s)", r.limiter(),
                r.buckets(), r.keys(), r.bytesPerBucket(), r.seconds()));
        return results;
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
