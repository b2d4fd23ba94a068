package dev.tollgate.bench;

import dev.tollgate.bench.builtin.BuiltInLimiterScript;
import dev.tollgate.bench.load.Credentials;
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
import dev.tollgate.bench.scenario.AuthFailureFlood;
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
import io.netty.handler.codec.http.DefaultHttpHeaders;
import reactor.netty.resources.LoopResources;

/**
 * The whole benchmark suite, run by {@code bench/run.sh}: JMH micro-benchmarks, then the scenarios
 * against real processes (Redis, upstream, gateways), then {@code docs/benchmarks.md} and its charts.
 *
 * <p>Usage: {@code BenchmarkSuite <project root>}; the gateway jar must have been built. With
 * {@code -Dbench.only=identity} ({@code bench/run.sh --identity}) it runs the identity scenarios
 * alone (saturation of the API-key, anonymous and JWT gateways, and the bogus-key flood)
 * and rewrites only their section of the report.
 */
public final class BenchmarkSuite {

    static final String GATEWAY_JAR = "gateway/target/tollgate-gateway-0.1.0-SNAPSHOT-exec.jar";

    /** Other work below half a core counts as quiet enough to start. */
    private static final double QUIET_BELOW_CORES = 0.5;

    private final Path root;
    private final SuitePlan plan;
    private final boolean quick;
    private final boolean identityOnly;
    private final Progress progress = new Progress();

    BenchmarkSuite(Path root, boolean quick, boolean identityOnly) {
        this.root = root;
        this.quick = quick;
        this.identityOnly = identityOnly;
        this.plan = quick ? SuitePlan.quick() : SuitePlan.standard();
    }

    /** The gateways the saturation scenario runs beside no limiter and Tollgate, and stops after it. */
    private static final List<GatewayVariant> SATURATION_ONLY = List.of(GatewayVariant.TOLLGATE_THREE_LIMITS,
            GatewayVariant.TOLLGATE_ANONYMOUS, GatewayVariant.TOLLGATE_JWT);

    public static void main(String[] args) {
        Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        int status = 0;
        try {
            Path report = new BenchmarkSuite(root, Boolean.getBoolean("bench.quick"),
                    "identity".equals(System.getProperty("bench.only"))).run();
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
        if (identityOnly) {
            return runIdentity(runDir, gatewayJar);
        }
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
        try (BenchEnvironment env = BenchEnvironment.start(runDir, gatewayJar, plan.latencyTenants())) {
            MachineInfo machine = MachineInfo.collect(env.redisStats().version());
            Map<String, GatewayVariant> names = new LinkedHashMap<>();
            for (GatewayVariant variant : List.of(GatewayVariant.NO_LIMITER, GatewayVariant.TOLLGATE,
                    GatewayVariant.BUILT_IN, GatewayVariant.TOLLGATE_THREE_LIMITS, GatewayVariant.TOLLGATE_ANONYMOUS,
                    GatewayVariant.TOLLGATE_JWT)) {
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
                // The three-limit gateway runs in the saturation scenario only, then stops:
                // the latency runs and the cluster runs compare the others, as before.
                List<Saturation.Target> latencyTargets = new ArrayList<>(saturationTargets);
                List<HttpTarget> warmed = new ArrayList<>(targets);
                List<GatewayProcess> saturationOnly = new ArrayList<>();
                for (GatewayProcess gateway : gateways) {
                    HttpTarget target = target(env, gateway, loops);
                    warmed.add(target);
                    Saturation.Target measured = new Saturation.Target(target, OptionalLong.of(gateway.process().pid()),
                            gateway.variant().isTollgate() ? new DecisionCounters(List.of(target)) : DecisionCounters.none());
                    saturationTargets.add(measured);
                    if (SATURATION_ONLY.contains(gateway.variant())) {
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
                RequestMix mix = coldMix();
                List<WarmUp.Result> warmUps = new ArrayList<>();
                for (HttpTarget target : warmed) {
                    boolean isDirect = target.name().equals(Targets.DIRECT);
                    WarmUp.Result warm = WarmUp.run(target, mix, plan.warmUpRequests(),
                            isDirect ? plan.warmUpMaxTime().dividedBy(5) : plan.warmUpMaxTime(),
                            isDirect ? CompilationTime.unknown() : CompilationTime.of(target));
                    warmUps.add(warm);
                    progress.say("warm-up %s: %s", target.name(), warm.summary());
                }

                List<Saturation.Mix> mixes = saturationMixes();
                List<Saturation.Run> saturation = saturate(env, saturationTargets, mixes);
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
                List<AuthFailureFlood.Run> flood = flood(env, loops);
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
                        directories, flood);
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

    /**
     * The identity scenarios alone ({@code bench/run.sh --identity}): the saturation scenario with no
     * limiter and Tollgate's API-key, anonymous and JWT gateways, then the bogus-key flood. Writes
     * their section into the report in place ({@link BenchmarkReport#writeIdentity}), every other
     * section as it was.
     */
    private Path runIdentity(Path runDir, Path gatewayJar) {
        progress.say("identity scenarios only; starting redis-server, upstream and gateways (logs: %s)",
                runDir.resolve("logs"));
        try (BenchEnvironment env = BenchEnvironment.start(runDir, gatewayJar, plan.latencyTenants())) {
            MachineInfo machine = MachineInfo.collect(env.redisStats().version());
            Map<String, GatewayVariant> names = new LinkedHashMap<>();
            for (GatewayVariant variant : List.of(GatewayVariant.NO_LIMITER, GatewayVariant.TOLLGATE,
                    GatewayVariant.TOLLGATE_ANONYMOUS, GatewayVariant.TOLLGATE_JWT)) {
                names.put(variant.id(), variant);
            }
            List<GatewayProcess> gateways = env.startGateways(names);
            progress.say("gateways ready");
            double otherWork = awaitQuiet("the load runs", Duration.ofSeconds(6));
            LoopResources loops = LoopResources.create("bench-load", 2, true);
            List<Saturation.Target> saturationTargets = new ArrayList<>();
            try {
                List<WarmUp.Result> warmUps = new ArrayList<>();
                for (GatewayProcess gateway : gateways) {
                    HttpTarget target = target(env, gateway, loops);
                    saturationTargets.add(new Saturation.Target(target, OptionalLong.of(gateway.process().pid()),
                            gateway.variant().isTollgate() ? new DecisionCounters(List.of(target)) : DecisionCounters.none()));
                    WarmUp.Result warm = WarmUp.run(target, coldMix(), plan.warmUpRequests(), plan.warmUpMaxTime(),
                            CompilationTime.of(target));
                    warmUps.add(warm);
                    progress.say("warm-up %s: %s", target.name(), warm.summary());
                }
                List<Saturation.Mix> mixes = saturationMixes();
                List<Saturation.Run> saturation = saturate(env, saturationTargets, mixes);
                env.stopGateways(gateways);
                List<AuthFailureFlood.Run> flood = flood(env, loops);
                List<String> names2 = saturationTargets.stream().map(t -> t.http().name()).toList();
                SuiteResults results = new SuiteResults(machine, otherWork, MachineInfo.loadAverage(), progress.elapsed(),
                        plan, names2, names2, List.of(), Double.NaN, List.of(), List.of(), warmUps, saturation,
                        List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), flood);
                return BenchmarkReport.writeIdentity(results, quick ? runDir.resolve("docs") : root.resolve("docs"),
                        root.resolve("docs"));
            } finally {
                saturationTargets.forEach(t -> t.http().close());
                loops.disposeLater().block(Duration.ofSeconds(5));
            }
        }
    }

    /** A client of {@code gateway}, its callers identified as the gateway's variant expects, checked to be that variant. */
    private static HttpTarget target(BenchEnvironment env, GatewayProcess gateway, LoopResources loops) {
        Credentials credentials = switch (gateway.variant()) {
            case TOLLGATE_ANONYMOUS -> Credentials.forwardedFor();
            case TOLLGATE_JWT -> Credentials.bearer(env::tokenFor);
            default -> Credentials.apiKey();
        };
        HttpTarget target = new HttpTarget(gateway.variant().label(), gateway.baseUrl(), loops, Duration.ofSeconds(5),
                credentials);
        if (gateway.variant() == GatewayVariant.TOLLGATE_JWT) {
            // Tokens are signed before any load (the generator's cost, not the gateway's), once per caller.
            DefaultHttpHeaders scratch = new DefaultHttpHeaders();
            credentials.apply(BenchRoutes.PROBE_TENANT, scratch);
            credentials.apply(BenchRoutes.HOT_TENANT, scratch);
            for (int i = 0; i < SuitePlan.standard().latencyTenants(); i++) {
                credentials.apply(BenchRoutes.COLD_TENANT_PREFIX + i, scratch);
            }
        }
        VariantCheck.verify(target, gateway.variant());
        return target;
    }

    /** The saturation rounds over {@code targets}, after one settling run of each mix. */
    private List<Saturation.Run> saturate(BenchEnvironment env, List<Saturation.Target> targets,
                                          List<Saturation.Mix> mixes) {
        Saturation saturating = new Saturation(targets, env.redisStats(), progress, env::requireAllAlive);
        saturating.settle(mixes, plan.saturationConcurrency(), plan.saturationRun());
        return saturating.run(mixes, plan.saturationRepetitions(), plan.saturationConcurrency(),
                plan.saturationRampUp(), plan.saturationRun());
    }

    private RequestMix coldMix() {
        return new RequestMix(BenchRoutes.BENCH_PATH, BenchRoutes.COLD_TENANT_PREFIX, plan.latencyTenants());
    }

    private List<Saturation.Mix> saturationMixes() {
        return List.of(new Saturation.Mix(Saturation.COLD, coldMix()),
                new Saturation.Mix(Saturation.HOT, RequestMix.singleTenant(BenchRoutes.BENCH_PATH, BenchRoutes.HOT_TENANT)));
    }

    /**
     * The bogus-key flood: two gateways whose keys are looked up in a directory of issued
     * keys, one with the failed-authentication limit at its defaults and one with it off, each warmed up
     * and then flooded from 127.0.0.2 beside a well-keyed client on 127.0.0.1. They are stopped after it.
     */
    private List<AuthFailureFlood.Run> flood(BenchEnvironment env, LoopResources loops) {
        Map<String, GatewayVariant> names = new LinkedHashMap<>();
        for (GatewayVariant variant : List.of(GatewayVariant.TOLLGATE_KEYS, GatewayVariant.TOLLGATE_KEYS_NO_FAILURE_LIMIT)) {
            names.put(variant.id(), variant);
        }
        progress.say("bogus-key flood: starting %s", names.keySet());
        List<GatewayProcess> started = env.startGateways(names);
        // The flood's own event loops: its 1,000 connections must not queue behind the client's.
        LoopResources floodLoops = LoopResources.create("bench-flood", 2, true);
        List<HttpTarget> opened = new ArrayList<>();
        try {
            List<AuthFailureFlood.Gateway> gateways = new ArrayList<>();
            for (GatewayProcess g : started) {
                HttpTarget victim = target(env, g, loops);
                opened.add(victim);
                WarmUp.Result warm = WarmUp.run(victim, coldMix(), plan.warmUpRequests(), plan.warmUpMaxTime(),
                        CompilationTime.of(victim));
                progress.say("warm-up %s: %s", victim.name(), warm.summary());
                HttpTarget flood = new HttpTarget(g.variant().label() + " (flood)", g.baseUrl(), floodLoops,
                        Duration.ofSeconds(10), Credentials.apiKey(), plan.floodConnections(), FLOOD_ADDRESS);
                opened.add(flood);
                gateways.add(new AuthFailureFlood.Gateway(g.variant().label(), victim, flood, g.process().pid()));
            }
            return new AuthFailureFlood(gateways, progress, env::requireAllAlive).run(
                    RequestMix.singleTenant(BenchRoutes.BENCH_PATH, BenchRoutes.VICTIM_TENANT),
                    new RequestMix(BenchRoutes.BENCH_PATH, BenchRoutes.BOGUS_KEY_PREFIX, 1_000_000),
                    new AuthFailureFlood.Plan(plan.floodVictimRate(), plan.floodConnections(), Duration.ofSeconds(1),
                            plan.floodRun(), plan.drain(), plan.floodRounds()));
        } finally {
            opened.forEach(HttpTarget::close);
            floodLoops.disposeLater().block(Duration.ofSeconds(5));
            env.stopGateways(started);
        }
    }

    /** The flood's source address: loopback, but not the well-keyed client's 127.0.0.1. */
    static final String FLOOD_ADDRESS = "127.0.0.2";

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
        results.add(memory.tollgateThreeLimits(plan.memoryTenants(), plan.memoryRoutes()));
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
