package dev.tollgate.bench.report;

import dev.tollgate.bench.scenario.MicroResult;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the report says of {@code LeaseHitBenchmark}: the time of a decision served from a lease
 * already held, beside the Redis calls its store actually made, which tell whether the figure is
 * a hit's at all, and the same store with leasing off.
 */
final class LeaseHitFigures {

    static final String HIT = "LeaseHitBenchmark.leaseHit";
    static final String LEASING_OFF = "LeaseHitBenchmark.leasingOff";

    /**
     * The target's bound: a lease hit makes no Redis call, so the measured decisions may include
     * at most one lease call per thousand (the benchmark's batches last about a second).
     */
    static final double MAX_CALLS_PER_DECISION = 0.001;

    /** The hit against a round trip, for the summary's discussion. */
    record Discussion(String hit, String off, String ratio) {
    }

    private final Optional<MicroResult> hit;
    private final Optional<MicroResult> leasingOff;

    LeaseHitFigures(List<MicroResult> micro) {
        this.hit = find(micro, HIT);
        this.leasingOff = find(micro, LEASING_OFF);
    }

    boolean met() {
        return hit.map(h -> h.redisCallsPerDecision() <= MAX_CALLS_PER_DECISION).orElse(false);
    }

    SummarySection.TargetRow targetRow() {
        String target = "A lease hit decides in memory, with no Redis call (at most 1 call per "
                + Fmt.rate(1 / MAX_CALLS_PER_DECISION) + " decisions, lease calls included)";
        if (hit.isEmpty()) {
            return new SummarySection.TargetRow(target, "not measured in this run", "n/a");
        }
        MicroResult h = hit.get();
        String measured = score(h) + " per decision, " + calls(h)
                + leasingOff.map(off -> "; leasing off: " + score(off) + " and "
                        + Fmt.fmt2(off.redisCallsPerDecision()) + " call per decision").orElse("");
        return new SummarySection.TargetRow(target, measured, Fmt.verdict(met(),
                String.format(Locale.ROOT, "%.2g", h.redisCallsPerDecision()) + " Redis calls per decision"));
    }

    Optional<SummarySection.Row> summaryRow() {
        return hit.map(h -> new SummarySection.Row("decision from a lease already held (JMH, one thread)",
                score(h) + ", " + calls(h), "—"));
    }

    /** Hit against round trip; empty unless both benchmarks ran. */
    Optional<Discussion> discussion() {
        if (hit.isEmpty() || leasingOff.isEmpty()) {
            return Optional.empty();
        }
        double ratio = nanos(leasingOff.get()) / nanos(hit.get());
        return Optional.of(new Discussion(score(hit.get()), score(leasingOff.get()), Fmt.rate(ratio)));
    }

    /** "5 Redis calls in 25,797,082 decisions", from the benchmark's own counters. */
    static String calls(MicroResult m) {
        Double decisions = m.counters().get(MicroResult.DECISIONS);
        Double calls = m.counters().get(MicroResult.REDIS_CALLS);
        if (decisions == null || calls == null) {
            return "Redis calls not counted";
        }
        return Fmt.rate(calls) + " Redis call" + (calls == 1 ? "" : "s") + " in " + Fmt.rate(decisions) + " decisions";
    }

    /** "132 ns", "116 µs": the mean, in the benchmark's own unit. */
    static String score(MicroResult m) {
        return String.format(Locale.ROOT, "%.0f %s", m.score(), unitName(m.unit()));
    }

    private static String unitName(String unit) {
        return unit.replace("/op", "").replace("us", "µs");
    }

    private static double nanos(MicroResult m) {
        double perUnit = switch (m.unit()) {
            case "ns/op" -> 1;
            case "us/op" -> 1e3;
            case "ms/op" -> 1e6;
            case "s/op" -> 1e9;
            default -> Double.NaN;
        };
        return m.score() * perUnit;
    }

    private static Optional<MicroResult> find(List<MicroResult> micro, String benchmark) {
        return micro.stream().filter(m -> m.benchmark().equals(benchmark)).findFirst();
    }
}
