package dev.tollgate.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.machine.MachineInfo;
import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.bench.scenario.AuthFailureFlood;
import dev.tollgate.bench.scenario.Saturation;
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

/** The identity section's arithmetic on made-up runs whose answers are known, and its rewriting in place. */
class IdentitySectionTest {

    @Test
    void costsAreTakenWithinEachRoundAndTheFloodIsComparedWithTheSameRoundAlone(@TempDir Path dir) throws Exception {
        Path current = dir.resolve("current");
        Files.createDirectories(current);
        Files.writeString(current.resolve("benchmarks.md"),
                "# Benchmarks\n\nEarlier sections.\n\n## Not measured yet\n\n- Redis Cluster\n");

        Path written = BenchmarkReport.writeIdentity(results(), dir.resolve("out"), current);
        String md = Files.readString(written);

        // Round 2 runs 20 % slower throughout: the within-round ratios do not move.
        assertThat(md)
                .contains("| API key (`X-Api-Key`) | 3,000 | 220 µs | +110 µs | 1.00 × | 200 µs, 240 µs |")
                .contains("| anonymous (client address from `X-Forwarded-For`) | 3,000 | 231 µs | +121 µs | 1.05 × | 210 µs, 252 µs |")
                .contains("| JWT (RS256 bearer token, `tenant` claim) | 2,000 | 440 µs | +330 µs | 2.00 × | 400 µs, 480 µs |")
                // limit off: 8 and 10 × the same round alone; limit on: 1.5 and 1.9 ×
                .contains("| Tollgate, failure limit off | 0.10 ms | 0.20 ms | 0.10 ms | 1.80 ms | 9.0 × | 1.60 ms (0.20 ms), 2.00 ms (0.20 ms) | 2,500 | 10,000 / 0 / 0 | 0.50 | 0.50 | 1000 µs | 167 µs |")
                .contains("| Tollgate, failure limit on | 0.10 ms | 1.00 ms | 0.10 ms | 1.70 ms | 1.7 × | 1.50 ms (1.00 ms), 1.90 ms (1.00 ms) | 4,993 | 30 / 19,940 / 0 | 0.50 | 0.50 | 1000 µs | 91 µs |")
                .contains("Measured apart from the rest of this report, by `bench/run.sh --identity`")
                .contains("not with other sections.\n\n### What an identity costs at saturation\n\nThe saturation")
                .doesNotContain("\n\n\n");
        // Inserted before "Not measured yet", between its marks, the rest untouched.
        assertThat(md).startsWith("# Benchmarks\n\nEarlier sections.\n\n" + BenchmarkReport.IDENTITY_START)
                .endsWith(BenchmarkReport.IDENTITY_END + "\n\n## Not measured yet\n\n- Redis Cluster\n");

        // A second run replaces the section rather than adding one.
        Files.copy(written, current.resolve("benchmarks.md"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        String again = Files.readString(BenchmarkReport.writeIdentity(results(), dir.resolve("out2"), current));
        assertThat(again.split(java.util.regex.Pattern.quote(BenchmarkReport.IDENTITY_START), -1)).hasSize(2);
        assertThat(again).isEqualTo(md);
    }

    private static SuiteResults results() {
        List<Saturation.Run> saturation = new ArrayList<>();
        for (int round = 1; round <= 2; round++) {
            double slower = round == 1 ? 1.0 : 1.2;
            saturation.add(run(round, Targets.NO_LIMITER, 4000, 400 * slower));
            saturation.add(run(round, Targets.TOLLGATE, 3000, 600 * slower));
            saturation.add(run(round, Targets.TOLLGATE_ANONYMOUS, 3000, 630 * slower));
            saturation.add(run(round, Targets.TOLLGATE_JWT, 2000, 800 * slower));
        }
        List<AuthFailureFlood.Run> flood = List.of(
                flood(Targets.FAILURE_LIMIT_ON, 1, false, 1000, null),
                flood(Targets.FAILURE_LIMIT_ON, 1, true, 1500, answers(30, 9970)),
                flood(Targets.FAILURE_LIMIT_ON, 2, true, 1900, answers(0, 9970)),
                flood(Targets.FAILURE_LIMIT_ON, 2, false, 1000, null),
                flood(Targets.FAILURE_LIMIT_OFF, 1, false, 200, null),
                flood(Targets.FAILURE_LIMIT_OFF, 1, true, 1600, answers(5000, 0)),
                flood(Targets.FAILURE_LIMIT_OFF, 2, true, 2000, answers(5000, 0)),
                flood(Targets.FAILURE_LIMIT_OFF, 2, false, 200, null));
        return new SuiteResults(
                new MachineInfo("2025-01-01 00:00 UTC", 2, "CPU", "24 GiB", "Linux", "Java 17", "redis-server 7", "0.1"),
                0.05, "0.2", Duration.ofSeconds(300), BenchmarkReportTest.plan(), List.of(), List.of(), List.of(),
                Double.NaN, List.of(), List.of(), List.of(), saturation, List.of(), List.of(), List.of(), List.of(),
                List.of(), List.of(), flood);
    }

    private static Saturation.Run run(int round, String target, long completed, double cpuMillis) {
        LoadResult result = new LoadResult(target, 0, completed, completed, 0, 0, 0, 1, Double.NaN, new Histogram(3),
                new Histogram(3));
        return new Saturation.Run(Saturation.COLD, round, target, result, 0.1, cpuMillis,
                target.equals(Targets.NO_LIMITER) ? DecisionSplit.NONE : new DecisionSplit(completed, 0, 0, 0, 0, 0),
                new CommandCounts(Map.of()), 0, 0);
    }

    /**
     * A client run of 1,000 requests: half at 0.1 ms, the rest (p99 included) at {@code p99Micros}
     * (below 2,048 µs, which the histogram holds exactly).
     */
    private static AuthFailureFlood.Run flood(String gateway, int round, boolean flooded, long p99Micros,
                                              LoadResult floodResult) {
        Histogram latency = new Histogram(3);
        latency.recordValueWithCount(100, 500);
        latency.recordValueWithCount(p99Micros, 500);
        LoadResult victim = new LoadResult(gateway, 500, 1000, 1000, 0, 0, 0, 2, 2, latency, new Histogram(3));
        return new AuthFailureFlood.Run(gateway, round, flooded, victim, floodResult, 1000, 0.1);
    }

    private static LoadResult answers(long unauthorized, long refused) {
        return new LoadResult("flood", 0, unauthorized + refused, 0, refused, unauthorized, 0, 2, Double.NaN,
                new Histogram(3), new Histogram(3));
    }
}
