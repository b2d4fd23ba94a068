package dev.tollgate.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.machine.MachineInfo;
import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.bench.metrics.TimeHistogram;
import dev.tollgate.bench.scenario.ClusterAccuracy;
import dev.tollgate.bench.scenario.CostCurve;
import dev.tollgate.bench.scenario.DirectoryFootprint;
import dev.tollgate.bench.scenario.HotKeyCost;
import dev.tollgate.bench.scenario.LatencyRun;
import dev.tollgate.bench.scenario.MicroResult;
import dev.tollgate.bench.scenario.ParallelBurst;
import dev.tollgate.bench.scenario.RedisMemoryPerBucket;
import dev.tollgate.bench.scenario.Saturation;
import dev.tollgate.bench.scenario.WarmUp;
import dev.tollgate.bench.suite.SuitePlan;
import dev.tollgate.bench.suite.SuiteResults;
import dev.tollgate.testkit.CommandCounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's arithmetic on made-up runs whose answers are known. */
class BenchmarkReportTest {

    private static final double RATE = 2000;
    private static final List<String> TARGETS =
            List.of(Targets.DIRECT, Targets.NO_LIMITER, Targets.TOLLGATE, Targets.BUILT_IN);
    private static final List<String> SATURATION_TARGETS =
            List.of(Targets.DIRECT, Targets.NO_LIMITER, Targets.TOLLGATE, Targets.BUILT_IN, Targets.TOLLGATE_THREE_LIMITS);

    @Test
    void addedLatencyIsTakenWithinEachRoundAndJudgedAgainstTheTargets(@TempDir Path docs) throws Exception {
        List<LatencyRun> latency = new ArrayList<>();
        for (int round = 1; round <= 3; round++) {
            long noise = round * 700L; // a machine slower in some rounds than others
            latency.add(run(round, Targets.DIRECT, 200 + noise, Map.of()));
            latency.add(run(round, Targets.NO_LIMITER, 1000 + noise, Map.of()));
            latency.add(run(round, Targets.TOLLGATE, 1500 + noise,
                    Map.of("evalsha", 1000L, "time", 1000L, "hmget", 1000L, "hset", 1000L, "pexpire", 1000L)));
            latency.add(run(round, Targets.BUILT_IN, 2500 + noise,
                    Map.of("evalsha", 1000L, "get", 2000L, "setex", 2000L)));
        }
        List<Saturation.Run> throughput = List.of(
                new Saturation.Run(1, Targets.DIRECT, closed(20000), 0.1),
                new Saturation.Run(1, Targets.NO_LIMITER, closed(4000), 0.1),
                new Saturation.Run(Saturation.COLD, 1, Targets.TOLLGATE, closed(3000), 0.1, 600,
                        new DecisionSplit(2990, 0, 10, 10, 0, 0),
                        new CommandCounts(Map.of("evalsha", 150L, "time", 150L, "hmget", 3000L)), 120, 3000),
                new Saturation.Run(Saturation.COLD, 1, Targets.TOLLGATE_THREE_LIMITS, closed(3500), 0.1, 650,
                        new DecisionSplit(3500, 0, 0, 0, 0, 0),
                        new CommandCounts(Map.of("evalsha", 175L, "time", 175L, "hmget", 10500L)), 150, 7000),
                new Saturation.Run(1, Targets.BUILT_IN, closed(2000), 0.1),
                new Saturation.Run(Saturation.COLD, 1, Targets.TOLLGATE_JWT, closed(2000), 0.1, 800,
                        new DecisionSplit(2000, 0, 0, 0, 0, 0), new CommandCounts(Map.of("evalsha", 100L)), 100, 2000),
                new Saturation.Run(Saturation.HOT, 1, Targets.NO_LIMITER, closed(4000), 0.1, 500,
                        DecisionSplit.NONE, new CommandCounts(Map.of()), 0, 0),
                new Saturation.Run(Saturation.HOT, 1, Targets.TOLLGATE, closed(3800), 0.1, 550,
                        new DecisionSplit(100, 3700, 0, 0, 80, 0),
                        new CommandCounts(Map.of("evalsha", 180L)), 30, 900));
        SuiteResults results = results(latency, throughput, List.of(
                leaseHit(120, 5, 20_000_000),
                new MicroResult("LeaseHitBenchmark.leasingOff", "", 80, 10, "us/op",
                        Map.of("decisions", 40_000d, "redisCalls", 40_000d)),
                new MicroResult("RedisRoundTripBenchmark.tryAcquire", "", 75, 5, "us/op"),
                new MicroResult("RuleLoadBenchmark.buildRuleSet", "", 40, 2, "ms/op"),
                new MicroResult("DirectoryLoadBenchmark.fullLoad", "directory=rules", 640, 90, "ms/op"),
                new MicroResult("DirectoryLoadBenchmark.fullLoad", "directory=plans", 300, 40, "ms/op")));

        Path file = BenchmarkReport.write(results, docs);
        String md = Files.readString(file);

        assertThat(md)
                .contains("| latency added at 2,000 req/s, p99 | +0.50 ms | +1.50 ms |")
                .contains("  | Tollgate | 120,000 | 5,000 | 1% | settled |")
                .contains("  | SCG RedisRateLimiter | 90,000 | 2,500 | 30% | **not settled** at the time limit |")
                .contains("| decision time inside the gateway at 2,000 req/s, p99 (`tollgate_decision_duration_seconds`)"
                        + " | ≤ 0.20 ms | — |")
                .contains("| 2,000 | 0.10 | 0.20 | 2.00 | 0.20, 0.20, 0.20 | 0.05 | 0.15 |")
                .contains("| Tollgate's added p99 ≤ 1.00 ms at half the no-limiter capacity (2,000 req/s), end to end and as"
                        + " the gateway times its decisions | end to end +0.50 ms (per round: +0.50 ms, +0.50 ms, +0.50 ms);"
                        + " inside the gateway, the wait for a decision: p99 ≤ 0.20 ms | **met** |")
                .contains("| With a healthy Redis at saturation, production defaults: the local fallback makes ≤ 1% of"
                        + " Tollgate's decisions | 0.15 % (10 of 6,800 decisions, every saturation run) | **met** |")
                .contains("| Throughput at saturation with 1,000 cold tenants ≥ 0.9 × no limiter | 3,000 vs 4,000 req/s:"
                        + " 0.75 × | **missed**, 0.75 × |")
                .contains("| 1,000 parallel requests from 100 clients on one bucket of 50 admit at most 50 + what refilled"
                        + " | 51 admitted, at most 51.5")
                .contains("| Tollgate | 3,000 | 75% | 200 µs | 50 | 40.0 ms | 20.0 µs | 1.0 µs | Redis 99.7 %, lease 0.0 %, fallback 0.33 % | 3,000 |")
                .contains("| Tollgate | 3,800 | 95% | 145 µs | 47 | 7.9 ms | 5.0 µs | 0.2 µs | Redis 2.6 %, lease 97.4 %, fallback 0.00 % | 3,800 |")
                .contains("| Tollgate | 1000 | 100 | 51 | 51.5 | 1.50 s | 0 | **met** |")
                .contains("| 1,000 | 20 | batched | 12,000 | 400 | 3800 | 5.0 ms |")
                .contains("+0.50 ms vs +1.50 ms")
                .contains("| throughput at saturation, cold tenants (no limiter: 4,000 req/s) | 3,000 req/s (75% of no limiter) | 2,000 req/s (50%) |")
                .contains("| Redis round trips per request | 1.00 | 1.00 |")
                .contains("| Redis commands executed per request (inside the script included) | 5.00 | 5.00 |")
                .contains("| admitted / limit, 3 instances, one tenant | 0.986 | n/a |")
                .contains("| Redis memory per bucket | 200 B | n/a |")
                .contains("| Redis memory per limit state, 3 limits each (plans; [memory](#redis-memory-per-bucket)) | 130 B | — |")
                .contains("| Redis memory per limit state with 3 limits per request (a bucket per route, a tenant bucket,"
                        + " a day quota) ≤ 120 B all in | 130 B (500,000 states in 100,000 keys;"
                        + " [memory](#redis-memory-per-bucket)) | **missed**, over by 10 B |")
                .contains("| Tollgate, 3 limits | 500000 | 100000 | 62.0 MiB | 130 B | 264 B |")
                .contains("| decision from a lease already held (JMH, one thread) | 120 ns,"
                        + " 5 Redis calls in 20,000,000 decisions | — |")
                .contains("| building a rule set of 100,000 rules (in memory) | 40.0 ms/op | — |")
                .contains("| full load of 100,000 rules and 100,000 API keys from PostgreSQL | 640 ms/op;"
                        + " 42.0 MB of heap retained by the snapshot | — |")
                .contains("| full load of 100,000 tenants on 3 plans (no rule rows) and 100,000 API keys from PostgreSQL"
                        + " | 300 ms/op; 21.5 MB of heap retained by the snapshot | — |")
                .contains("| throughput at saturation, cold tenants, 3 limits each (route bucket, tenant bucket, day quota)"
                        + " | 3,500 req/s (88% of no limiter) | — |")
                .contains("| Redis script time per request at saturation, cold tenants (`INFO commandstats`): 1 limit / 3 limits"
                        + " | 1.0 µs (20.0 µs per call) / 2.0 µs (40.0 µs per call) | — |")
                .contains("| Throughput at saturation with 1,000 cold tenants each under 3 limits (a bucket per route, a"
                        + " tenant bucket, a day quota) ≥ 0.85 × no limiter | 3,500 vs 4,000 req/s: 0.88 ×"
                        + " ([saturation](#throughput-at-saturation)) | **met** |")
                .contains("| Tollgate, 3 limits | 3,500 | 88% | 186 µs | 50 | 42.9 ms | 40.0 µs | 2.0 µs |")
                .contains("| no limiter | 4,000 | 100% | 125 µs | 0 | 0.0 ms | — | — | — | 4,000 |")
                .contains("| A lease hit decides in memory, with no Redis call (at most 1 call per 1,000 decisions,"
                        + " lease calls included) | 120 ns per decision, 5 Redis calls in 20,000,000 decisions;"
                        + " leasing off: 80 µs and 1.00 call per decision | **met** |")
                .contains("against 80 µs for the same store with leasing off (one `EVALSHA` per decision): 667 times less")
                .contains("| `LeaseHitBenchmark.leaseHit` | leasing store, one hot key, decision from a lease already"
                        + " held (real Redis lease source); 5 Redis calls in 20,000,000 decisions (measured iterations)"
                        + " | 120.000 ns/op |")
                .contains("| `DirectoryLoadBenchmark.fullLoad` (directory=rules) | full load from PostgreSQL")
                .contains("| `DirectoryLoadBenchmark.fullLoad` (directory=plans) | full load from PostgreSQL")
                .contains("| With leases a hot key costs ≤ 1 Redis call per 20 admitted requests | 150 script calls for"
                        + " 6,000 admitted: 1 per 40.0 ([hot key](#a-hot-key-with-token-leases)) | **met** |")
                .contains("## A hot key with token leases")
                .contains("| 3 | 1,500 | 300 | 6000 | 6000 | 0 | 0 | 150 | 0.0250 (1 per 40.0) |")
                .contains("| 186 | 3 | 480 | 7770 | 0 | 0 |")
                .contains("| 0.986 | 2910 | 0 | 300 / 3300 / 0 | 0 |")
                .contains("In the accuracy run every Tollgate decision was made by Redis or a lease")
                .contains("In the hot-key run every Tollgate decision was made by Redis or a lease")
                .doesNotContain("pending")
                .doesNotContain("Lease hit** (issue 5)")
                .doesNotContain("Loading rules from PostgreSQL");
        // The template's layout: every section in order, each after one blank line, values written
        // as they are (Markdown, not HTML: nothing escaped).
        assertThat(md)
                .startsWith("# Benchmarks\n\nGenerated by `bench/run.sh` on 2025-01-01 00:00 UTC in 5 min 0 s.")
                .containsSubsequence("\n\n## Summary\n", "\n\n### Targets\n", "\n\n## Machine\n",
                        "\n\n## How it was measured\n",
                        "\n\n## Throughput at saturation\n", "\n\n### 1,000 cold tenants in rotation\n",
                        "\n\n### one hot tenant\n", "\n\n## Latency at fixed rates\n",
                        "\n\n### Added over the same gateway without a limiter\n",
                        "\n\n### Round by round at 2,000 req/s\n", "\n\n## 1,000 parallel requests on one bucket\n",
                        "\n\n## Redis commands per request\n", "\n\n## What Redis pays per 1,000 decisions\n",
                        "\n\n## Accuracy with several instances sharing one Redis\n",
                        "\n\n## A hot key with token leases\n", "\n\n## Redis memory per bucket\n",
                        "\n\n## Micro-benchmarks (JMH)\n",
                        "\n\n" + BenchmarkReport.IDENTITY_START + "\n## Who a request comes from: API key, anonymous, JWT\n",
                        "\n\n" + BenchmarkReport.IDENTITY_END + "\n\n## Not measured yet\n", "\n\n## Every run\n")
                .doesNotContain("\n\n\n")
                .endsWith("</details>\n")
                .contains("| round | other work (cores) | direct to upstream | no limiter | Tollgate | SCG RedisRateLimiter |\n"
                        + "|---:|---:|---:|---:|---:|---:|\n"
                        + "| 1 | 0.25 | 0.90 | 1.70 | 2.20 (+0.50 ms) | 3.20 (+1.50 ms) |\n")
                .contains("latency    round 1  no limiter offered=2000/s")
                .contains("| JWT (RS256 bearer token, `tenant` claim) | 2,000 | 400 µs | n/a | 2.00 × | 400 µs |")
                .doesNotContain("&#");
        assertThat(docs.resolve("benchmarks/latency-p99.png")).isRegularFile();
        assertThat(docs.resolve("benchmarks/added-latency.png")).isRegularFile();
        assertThat(docs.resolve("benchmarks/throughput.png")).isRegularFile();
    }

    @Test
    void aLeaseHitFigureThatIncludesManyRedisCallsMissesItsTarget(@TempDir Path docs) throws Exception {
        List<LatencyRun> latency = new ArrayList<>();
        for (String target : TARGETS) {
            latency.add(run(1, target, 1000, Map.of()));
        }
        // One call in ten decisions: not a hit's figure, whatever its time.
        String md = Files.readString(BenchmarkReport.write(
                results(latency, List.of(), List.of(leaseHit(900, 100_000, 1_000_000))), docs));

        assertThat(md).contains("| 900 ns per decision, 100,000 Redis calls in 1,000,000 decisions |"
                + " **missed**, 0.10 Redis calls per decision |");
    }

    @Test
    void aSmallEndToEndDifferenceDoesNotMeetTheLatencyTargetWhenTheGatewayTimedSlowDecisions(@TempDir Path docs)
            throws Exception {
        List<LatencyRun> latency = new ArrayList<>();
        for (String target : TARGETS) {
            LatencyRun run = run(1, target, 1000, Map.of()); // end to end, nothing added
            if (target.equals(Targets.TOLLGATE)) {
                // ...but 2 % of the decisions waited up to 3 ms in the gateway.
                run = new LatencyRun(1, RATE, target, run.result(), run.redisCommands(), run.otherWorkCores(),
                        new TimeHistogram(new java.util.TreeMap<>(Map.of(0.0005, 980L, 0.003, 1000L))),
                        run.redisCallTimes());
            }
            latency.add(run);
        }
        String md = Files.readString(BenchmarkReport.write(results(latency, List.of(), List.of()), docs));

        assertThat(md).contains("inside the gateway, the wait for a decision: p99 ≤ 3.00 ms | **missed**, inside the"
                + " gateway by up to +2.00 ms |");
    }

    @Test
    void aRunWithoutTheLeaseBenchmarkSaysSo(@TempDir Path docs) throws Exception {
        List<LatencyRun> latency = new ArrayList<>();
        for (String target : TARGETS) {
            latency.add(run(1, target, 1000, Map.of()));
        }
        String md = Files.readString(BenchmarkReport.write(results(latency, List.of(), List.of()), docs));

        assertThat(md).contains("lease calls included) | not measured in this run | n/a |")
                .doesNotContain("decision from a lease already held (JMH");
    }

    @Test
    void aClusterRunInWhichTheFallbackDecidedIsFlagged(@TempDir Path docs) throws Exception {
        List<LatencyRun> latency = new ArrayList<>();
        for (String target : TARGETS) {
            latency.add(run(1, target, 1000, Map.of()));
        }
        // Redis calls cut off on a starved machine: the fallback decided part of the accuracy run.
        DecisionSplit accuracy = new DecisionSplit(275, 1272, 323, 174, 61, 1);
        // A few cut-off lease fetches: their waiters decided locally.
        DecisionSplit hotKey = new DecisionSplit(480, 7740, 30, 5, 186, 3);
        String md = Files.readString(BenchmarkReport.write(
                results(latency, List.of(), List.of(), accuracy, hotKey), docs));

        assertThat(md)
                .contains("| 275 / 1272 / 323 | 174 |")
                .contains("**In the accuracy run the local fallback decided 323 of 1870 requests** (174 Redis calls"
                        + " cut off or failed)")
                .contains("**In the hot-key run the local fallback decided 30 of 8250 requests** (5 Redis calls")
                .doesNotContain("every Tollgate decision was made by Redis or a lease");
    }

    private static MicroResult leaseHit(double nanos, long redisCalls, long decisions) {
        return new MicroResult("LeaseHitBenchmark.leaseHit", "", nanos, nanos / 10, "ns/op",
                Map.of("decisions", (double) decisions, "redisCalls", (double) redisCalls));
    }

    private static SuiteResults results(List<LatencyRun> latency, List<Saturation.Run> throughput,
                                        List<MicroResult> micro) {
        return results(latency, throughput, micro, new DecisionSplit(300, 3300, 0, 0, 160, 1),
                new DecisionSplit(480, 7770, 0, 0, 186, 3));
    }

    private static SuiteResults results(List<LatencyRun> latency, List<Saturation.Run> throughput,
                                        List<MicroResult> micro, DecisionSplit accuracy, DecisionSplit hotKey) {
        return new SuiteResults(
                new MachineInfo("2025-01-01 00:00 UTC", 2, "CPU", "24 GiB", "Linux", "Java 17", "redis-server 7", "0.1"),
                0.05, "0.2", Duration.ofSeconds(300), plan(), TARGETS, SATURATION_TARGETS, List.of(RATE), RATE, micro, latency,
                List.of(new WarmUp.Result(Targets.TOLLGATE, 120_000, 5_000, 0.01, true),
                        new WarmUp.Result(Targets.BUILT_IN, 90_000, 2_500, 0.3, false)),
                throughput,
                List.of(new ClusterAccuracy.Result(Targets.TOLLGATE, 3, 600, 6, 3600, 690, 2910, 0, 700,
                        accuracy)),
                List.of(new RedisMemoryPerBucket.Result(Targets.TOLLGATE, 300_000, 300_000, 60_000_000, 5, 90),
                        new RedisMemoryPerBucket.Result(Targets.TOLLGATE_THREE_LIMITS, 500_000, 100_000, 65_000_000, 5,
                                264)),
                List.of(new HotKeyCost.Result(3, 1500, 6000, 6000, 0, 0, 150, 300,
                        hotKey)),
                List.of(new ParallelBurst.Result(Targets.TOLLGATE, 1000, 100, 51, 949, 0, 1.5, 51.5,
                        new DecisionSplit(1000, 0, 0, 0, 0, 0))),
                List.of(new CostCurve.Point(CostCurve.BATCHED, 1000, 20, 12_000,
                        new CommandCounts(Map.of("evalsha", 4800L, "time", 4800L, "hmget", 12_000L, "hset", 12_000L,
                                "pexpire", 12_000L, "eval", 0L)), 60)),
                List.of(new DirectoryFootprint.Result("rules", 42_000_000, 2000),
                        new DirectoryFootprint.Result("plans", 21_500_000, 1500)), List.of());
    }

    static SuitePlan plan() {
        SuitePlan standard = SuitePlan.standard();
        return new SuitePlan(List.of(0.5), 0.5, 3, 3, standard.lastRoundStart(), standard.latencyRun(),
                standard.drain(), standard.warmUpRequests(), standard.warmUpMaxTime(), standard.latencyTenants(), 1,
                standard.saturationConcurrency(), standard.saturationRampUp(), standard.saturationRun(), 3,
                standard.builtInAccuracyBy(), 600, standard.accuracyRun(), standard.memoryTenants(),
                standard.memoryRoutes(), standard.hotKeyRate(), standard.hotKeyRun(), 1000, 100,
                standard.costTenants(), standard.costInstances(), standard.costRate(), standard.costRun(),
                standard.floodVictimRate(), standard.floodConnections(), standard.floodRun(), standard.floodRounds());
    }

    /** 1000 responses that all took {@code micros}. */
    private static LatencyRun run(int round, String target, long micros, Map<String, Long> commands) {
        Histogram latency = new Histogram(3);
        latency.recordValueWithCount(micros, 1000);
        LoadResult result = new LoadResult(target, RATE, 1000, 1000, 0, 0, 0, 0.5, 0.5, latency, new Histogram(3));
        return new LatencyRun(round, RATE, target, result, new CommandCounts(commands), 0.25 * round,
                target.equals(Targets.TOLLGATE) ? decisionTimes(round) : TimeHistogram.NONE,
                target.equals(Targets.TOLLGATE) ? redisCallTimes() : TimeHistogram.NONE);
    }

    /** 1000 Redis calls: 500 within 50 µs, all within 0.15 ms. */
    private static TimeHistogram redisCallTimes() {
        return new TimeHistogram(new java.util.TreeMap<>(Map.of(0.00005, 500L, 0.00015, 1000L,
                Double.POSITIVE_INFINITY, 1000L)));
    }

    /**
     * 1000 decisions timed by the gateway: 900 within 0.1 ms, 90 more within 0.2 ms, the last ten
     * within {@code round} ms (so the p99 is 0.2 ms, and the p99.9 moves with the round).
     */
    private static TimeHistogram decisionTimes(int round) {
        return new TimeHistogram(new java.util.TreeMap<>(Map.of(0.0001, 900L, 0.0002, 990L, round / 1000.0, 1000L,
                Double.POSITIVE_INFINITY, 1000L)));
    }

    private static LoadResult closed(long perSecond) {
        return new LoadResult("t", 0, perSecond, perSecond, 0, 0, 0, 1, Double.NaN, new Histogram(3), new Histogram(3));
    }
}
