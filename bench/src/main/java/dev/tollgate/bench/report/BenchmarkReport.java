package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.BUILT_IN;
import static dev.tollgate.bench.report.Targets.TOLLGATE;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import dev.tollgate.bench.scenario.Saturation;
import dev.tollgate.bench.suite.SuitePlan;
import dev.tollgate.bench.suite.SuiteResults;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes {@code docs/benchmarks.md} and its charts ({@code docs/benchmarks/*.png}) from one run of
 * the suite: the figures ({@link Figures}) go into a view ({@link ReportView}) that the templates
 * under {@code src/main/resources/report} render.
 */
public final class BenchmarkReport {

    public static final double TARGET_ADDED_P99_MS = 1.0;
    /** Target: with a healthy Redis at saturation, the local fallback makes at most 1 % of decisions. */
    public static final double TARGET_FALLBACK_SHARE = 0.01;
    /** Target: at saturation with many cold tenants, at least 0.9 times the no-limiter throughput. */
    public static final double TARGET_THROUGHPUT_RATIO = 0.9;
    /**
     * Target: at saturation with many cold tenants each under three limits (a bucket per route, a
     * tenant bucket, a day quota), at least 0.85 times the no-limiter throughput.
     */
    public static final double TARGET_THREE_LIMITS_RATIO = 0.85;
    /**
     * Target: with several limits per request (the three-limit plan), Redis memory per limit state at
     * most 120 B all in ({@code used_memory} added / states).
     */
    public static final double TARGET_LIMIT_STATE_BYTES = 120;
    /** Target for a hot key with leases: at most one Redis call per 20 admitted requests. */
    public static final double TARGET_HOT_KEY_CALLS_PER_ADMITTED = 1.0 / 20;
    static final String CHART_DIR = "benchmarks";

    private BenchmarkReport() {
    }

    /** Writes the report into {@code docsDir} and returns the Markdown file. */
    public static Path write(SuiteResults results, Path docsDir) {
        charts(new Figures(results), docsDir.resolve(CHART_DIR));
        Path file = docsDir.resolve("benchmarks.md");
        try {
            Files.createDirectories(docsDir);
            Files.writeString(file, render(ReportView.of(results)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** The marks around the identity section in {@code benchmarks.md}. */
    static final String IDENTITY_START = "<!-- identity: from here to its end mark, bench/run.sh --identity rewrites this section alone -->";
    static final String IDENTITY_END = "<!-- identity: end -->";

    /**
     * Writes {@code benchmarks.md} into {@code docsDir}: the report in {@code currentDocsDir} with its
     * identity section alone replaced by this run's (inserted before "Not measured yet" if the report
     * has none yet). Every other section keeps the figures of the run that wrote it.
     */
    public static Path writeIdentity(SuiteResults results, Path docsDir, Path currentDocsDir) {
        Figures f = new Figures(results);
        String line = String.format(java.util.Locale.ROOT, "Measured apart from the rest of this report, by"
                        + " `bench/run.sh --identity` on %s in %d min %d s (%s), on the machine described above; load"
                        + " average (1/5/15 min) at start %s, at end %s; cores used by other work just before the load"
                        + " runs %.2f (of 2). Compare the figures within this section, not with other sections.",
                results.machine().date(), results.elapsed().toMinutes(), results.elapsed().toSecondsPart(),
                results.plan().saturationRepetitions() > 1 ? "the standard sizes" : "the quick sizes",
                results.machine().loadAverageAtStart(), results.loadAverageAtEnd(), results.otherWorkCoresBefore());
        String section = identityMarkdown(IdentitySection.of(f, line));
        Path file = docsDir.resolve("benchmarks.md");
        try {
            String current = Files.readString(currentDocsDir.resolve("benchmarks.md"));
            Files.createDirectories(docsDir);
            Files.writeString(file, replaceIdentity(current, section));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** The identity section as it stands between its marks: ending in a blank line; "" without one. */
    static String identityMarkdown(IdentitySection section) {
        return section == null ? "" : renderPartial("identity.mustache", section).stripTrailing() + "\n\n";
    }

    /** {@code report} with the text between the identity marks replaced by {@code section}. */
    static String replaceIdentity(String report, String section) {
        int start = report.indexOf(IDENTITY_START);
        int end = report.indexOf(IDENTITY_END);
        String marked = IDENTITY_START + "\n" + section + IDENTITY_END;
        if (start >= 0 && end > start) {
            return report.substring(0, start) + marked + report.substring(end + IDENTITY_END.length());
        }
        int before = report.indexOf("## Not measured yet");
        if (before < 0) {
            return report.stripTrailing() + "\n\n" + marked + "\n";
        }
        return report.substring(0, before) + marked + "\n\n" + report.substring(before);
    }

    private static String renderPartial(String template, Object view) {
        StringWriter out = new StringWriter();
        templates().compile(template).execute(out, view);
        return out.toString();
    }

    private static DefaultMustacheFactory templates() {
        // Markdown, not HTML: values are written as they are, never HTML-escaped.
        return new DefaultMustacheFactory("report") {
            @Override
            public void encode(String value, Writer writer) {
                try {
                    writer.write(value);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    static String render(ReportView view) {
        DefaultMustacheFactory templates = templates();
        Mustache report = templates.compile("benchmarks.md.mustache");
        StringWriter out = new StringWriter();
        report.execute(out, view);
        // Each section's line in the template ends in the blank line that follows it; the last needs none.
        return out.toString().stripTrailing() + "\n";
    }

    private static void charts(Figures f, Path dir) {
        SuitePlan plan = f.plan();
        List<Double> rates = f.rates();
        List<String> groups = rates.stream().map(r -> Fmt.rate(r) + " req/s").toList();

        BarChart p99 = new BarChart("p99 latency at fixed request rates (median of " + f.rounds() + " runs)",
                "p99 latency (ms, log scale)", groups).logScale();
        for (String target : f.results().targets()) {
            p99.series(target, rates.stream().mapToDouble(r -> f.medianLatency(target, r, 99)).toArray());
        }
        p99.writePng(dir.resolve("latency-p99.png"));

        BarChart added = new BarChart("Latency added over the same gateway without a limiter", "added latency (ms)",
                groups);
        for (String limiter : List.of(TOLLGATE, BUILT_IN)) {
            for (double p : List.of(50.0, 99.0)) {
                added.series(limiter + " p" + Fmt.percentile(p),
                        rates.stream().mapToDouble(r -> f.medianAdded(limiter, r, p)).toArray());
            }
        }
        added.writePng(dir.resolve("added-latency.png"));

        List<String> targets = f.results().saturationTargets();
        new BarChart("Throughput at saturation (closed loop, " + plan.saturationConcurrency()
                + " requests in flight, median of " + plan.saturationRepetitions() + ")", "requests per second", targets)
                .series("1,000 cold tenants", targets.stream().mapToDouble(t -> f.medianThroughput(t, Saturation.COLD)).toArray())
                .series("one hot tenant", targets.stream().mapToDouble(t -> f.medianThroughput(t, Saturation.HOT)).toArray())
                .valuePattern("#,##0")
                .writePng(dir.resolve("throughput.png"));
    }
}
