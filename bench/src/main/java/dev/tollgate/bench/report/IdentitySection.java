package dev.tollgate.bench.report;

import dev.tollgate.bench.scenario.AuthFailureFlood;
import dev.tollgate.bench.scenario.Median;
import dev.tollgate.bench.scenario.Saturation;
import dev.tollgate.bench.suite.SuitePlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Who a request comes from: what an anonymous and a JWT decision cost against an API-key
 * decision at saturation, and the bogus-key flood with and without the failed-authentication limit;
 * template {@code report/identity.mustache}.
 *
 * @param separateRun a line saying when and how the section was measured, when it was measured apart
 *                    from the rest of the report ({@code bench/run.sh --identity}); null in a full run
 */
record IdentitySection(String separateRun, List<Mix> mixes, int rounds, int concurrency, int seconds,
                       boolean hasFlood, List<FloodRow> flood, FloodPlan floodPlan, List<String> floodRuns) {

    static final List<String> IDENTITIES = List.of(Targets.TOLLGATE, Targets.TOLLGATE_ANONYMOUS, Targets.TOLLGATE_JWT);

    record Mix(String title, List<Row> rows) {
    }

    /**
     * One identity at saturation. {@code overNoLimiter} and {@code overApiKey} are medians over rounds
     * of a difference or ratio taken within each round (the runs of one round share its minutes).
     */
    record Row(String identity, String rate, String cpuPerRequest, String overNoLimiter, String overApiKey,
               String cpuPerRound, String scriptCalls, String decisions, String non2xx) {
    }

    record FloodRow(String gateway, String quietP50, String quietP99, String floodedP50, String floodedP99,
                    String p99Ratio, String p99PerRound, String floodRate, String floodAnswers, String quietCores,
                    String floodedCores, String quietCpuPerAnswer, String floodedCpuPerAnswer, String clientErrors) {
    }

    record FloodPlan(String victimRate, int connections, int seconds, int rounds) {
    }

    /** The section of a full run, or null (no section) if the run measured none of it. */
    static IdentitySection of(Figures f) {
        IdentitySection section = of(f, null);
        return section.mixes().isEmpty() && !section.hasFlood() ? null : section;
    }

    static IdentitySection of(Figures f, String separateRun) {
        SuitePlan plan = f.plan();
        List<Mix> mixes = new ArrayList<>();
        for (String mix : List.of(Saturation.COLD, Saturation.HOT)) {
            List<Row> rows = new ArrayList<>();
            for (String target : withNoLimiter()) {
                if (!f.saturationRuns(target, mix).isEmpty()) {
                    rows.add(row(f, target, mix));
                }
            }
            if (!f.saturationRuns(Targets.TOLLGATE_ANONYMOUS, mix).isEmpty()
                    || !f.saturationRuns(Targets.TOLLGATE_JWT, mix).isEmpty()) {
                mixes.add(new Mix(mix.equals(Saturation.COLD)
                        ? Fmt.rate(plan.latencyTenants()) + " cold callers in rotation" : "one hot caller", rows));
            }
        }
        List<AuthFailureFlood.Run> runs = f.results().flood();
        List<FloodRow> flood = new ArrayList<>();
        for (String gateway : List.of(Targets.FAILURE_LIMIT_OFF, Targets.FAILURE_LIMIT_ON)) {
            if (runs.stream().anyMatch(r -> r.gateway().equals(gateway))) {
                flood.add(floodRow(runs, gateway));
            }
        }
        List<String> floodRuns = runs.stream().map(IdentitySection::runLine).toList();
        return new IdentitySection(separateRun, mixes, plan.saturationRepetitions(), plan.saturationConcurrency(),
                (int) plan.saturationRun().toSeconds(), !flood.isEmpty(), flood,
                new FloodPlan(Fmt.rate(plan.floodVictimRate()), plan.floodConnections(), (int) plan.floodRun().toSeconds(),
                        plan.floodRounds()), floodRuns);
    }

    private static List<String> withNoLimiter() {
        List<String> targets = new ArrayList<>();
        targets.add(Targets.NO_LIMITER);
        targets.addAll(IDENTITIES);
        return targets;
    }

    private static Row row(Figures f, String target, String mix) {
        boolean baseline = target.equals(Targets.NO_LIMITER);
        String label = target.equals(Targets.TOLLGATE) ? "API key (`X-Api-Key`)"
                : target.equals(Targets.TOLLGATE_ANONYMOUS) ? "anonymous (client address from `X-Forwarded-For`)"
                : target.equals(Targets.TOLLGATE_JWT) ? "JWT (RS256 bearer token, `tenant` claim)" : target;
        List<Saturation.Run> runs = f.saturationRuns(target, mix);
        String perRound = runs.stream().map(r -> micros(r.cpuMicrosPerRequest())).collect(Collectors.joining(", "));
        long non2xx = runs.stream().mapToLong(r -> r.result().responses() - r.result().ok() + r.result().errors()).sum();
        return new Row(label, Fmt.rate(f.medianThroughput(target, mix)),
                micros(f.medianOfSaturation(target, mix, Saturation.Run::cpuMicrosPerRequest)),
                baseline ? "—" : signedMicros(perRound(f, target, Targets.NO_LIMITER, mix, (a, b) -> a - b)),
                baseline ? "—" : String.format(Locale.ROOT, "%.2f ×",
                        perRound(f, target, Targets.TOLLGATE, mix, (a, b) -> a / b)),
                perRound, Fmt.rate(f.medianOfSaturation(target, mix, Saturation.Run::scriptCallsPerThousand)),
                baseline ? "—" : f.saturationDecisions(target, mix).shares(), Long.toString(non2xx));
    }

    /** The median over rounds of {@code op(target's CPU per request, other's)} within each round. */
    private static double perRound(Figures f, String target, String other, String mix,
                                   java.util.function.DoubleBinaryOperator op) {
        List<Double> values = new ArrayList<>();
        for (Saturation.Run r : f.saturationRuns(target, mix)) {
            Optional<Saturation.Run> o = f.saturationRuns(other, mix).stream()
                    .filter(x -> x.repetition() == r.repetition()).findFirst();
            o.ifPresent(x -> values.add(op.applyAsDouble(r.cpuMicrosPerRequest(), x.cpuMicrosPerRequest())));
        }
        return Median.of(values);
    }

    private static FloodRow floodRow(List<AuthFailureFlood.Run> runs, String gateway) {
        ToDoubleFunction<AuthFailureFlood.Run> p50 = r -> r.victim().percentileMillis(50);
        ToDoubleFunction<AuthFailureFlood.Run> p99 = r -> r.victim().percentileMillis(99);
        List<AuthFailureFlood.Run> flooded = runs.stream().filter(r -> r.gateway().equals(gateway) && r.flooded()).toList();
        long unauthorized = flooded.stream().mapToLong(r -> r.flood().otherStatus()).sum();
        long refused = flooded.stream().mapToLong(r -> r.flood().limited()).sum();
        long floodErrors = flooded.stream().mapToLong(r -> r.flood().errors()).sum();
        long clientErrors = runs.stream().filter(r -> r.gateway().equals(gateway))
                .mapToLong(r -> r.victim().errors() + r.victim().otherStatus() + r.victim().limited()).sum();
        String perRound = flooded.stream().map(r -> {
            Optional<AuthFailureFlood.Run> quiet = runs.stream().filter(q -> q.gateway().equals(gateway) && !q.flooded()
                    && q.round() == r.round()).findFirst();
            return ms(p99.applyAsDouble(r)) + quiet.map(q -> " (" + ms(p99.applyAsDouble(q)) + ")").orElse("");
        }).collect(Collectors.joining(", "));
        return new FloodRow(gateway,
                ms(AuthFailureFlood.median(runs, gateway, false, p50)),
                ms(AuthFailureFlood.median(runs, gateway, false, p99)),
                ms(AuthFailureFlood.median(runs, gateway, true, p50)),
                ms(AuthFailureFlood.median(runs, gateway, true, p99)),
                String.format(Locale.ROOT, "%.1f ×", AuthFailureFlood.medianRatio(runs, gateway, p99)),
                perRound,
                Fmt.rate(AuthFailureFlood.median(runs, gateway, true, r -> r.flood().achievedRate())),
                String.format(Locale.ROOT, "%,d / %,d / %,d", unauthorized, refused, floodErrors),
                Fmt.fmt2(AuthFailureFlood.median(runs, gateway, false, AuthFailureFlood.Run::gatewayCores)),
                Fmt.fmt2(AuthFailureFlood.median(runs, gateway, true, AuthFailureFlood.Run::gatewayCores)),
                micros(AuthFailureFlood.median(runs, gateway, false, AuthFailureFlood.Run::cpuMicrosPerAnswer)),
                micros(AuthFailureFlood.median(runs, gateway, true, AuthFailureFlood.Run::cpuMicrosPerAnswer)),
                Long.toString(clientErrors));
    }

    private static String runLine(AuthFailureFlood.Run r) {
        return String.format(Locale.ROOT, "flood %-28s round %d %-7s client: %s gatewayCores=%.2f otherWork=%.2f%s",
                r.gateway(), r.round(), r.flooded() ? "flooded" : "quiet", r.victim().summary(), r.gatewayCores(),
                r.otherWorkCores(), r.flood() == null ? "" : " | flood: " + r.flood().summary());
    }

    private static String ms(double ms) {
        return Double.isNaN(ms) ? "n/a" : String.format(Locale.ROOT, "%.2f ms", ms);
    }

    private static String micros(double us) {
        return Double.isNaN(us) ? "n/a" : String.format(Locale.ROOT, "%.0f µs", us);
    }

    private static String signedMicros(double us) {
        return Double.isNaN(us) ? "n/a" : String.format(Locale.ROOT, "%+.0f µs", us);
    }
}
