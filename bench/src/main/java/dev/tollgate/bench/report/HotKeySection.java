package dev.tollgate.bench.report;

import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.bench.scenario.HotKeyCost;
import dev.tollgate.bench.suite.SuitePlan;
import java.util.List;
import java.util.Locale;

/**
 * What one hot key costs Redis with token leases, and how the instances split their decisions;
 * template {@code report/hot-key.mustache}.
 */
record HotKeySection(String rate, int instances, String becomingHotSeconds, long runSeconds, long giveBackSeconds,
                     List<Row> rows, FallbackNote fallback) {

    /** One hot-key run: Redis's count of script calls beside the instances' own counters. */
    record Row(int instances, String offered, long becomingHot, long sent, long admitted, long limited, long failed,
               long scriptCalls, String perAdmitted, DecisionSplit split) {
    }

    static HotKeySection of(Figures f) {
        SuitePlan plan = f.plan();
        List<HotKeyCost.Result> results = f.results().hotKey();
        List<Row> rows = results.stream().map(h -> new Row(h.instances(), Fmt.rate(h.offeredRate()),
                h.becomingHotCalls(), h.sent(), h.admitted(), h.limited(), h.failed(), h.scriptCalls(),
                String.format(Locale.ROOT, "%.4f (1 per %.1f)", h.callsPerAdmitted(), 1 / h.callsPerAdmitted()),
                h.decisions())).toList();
        return new HotKeySection(Fmt.rate(plan.hotKeyRate()), plan.accuracyInstances(),
                Fmt.fmt2(HotKeyCost.BECOMING_HOT.toMillis() / 1000d), plan.hotKeyRun().toSeconds(),
                HotKeyCost.GIVE_BACK_WAIT_SECONDS, rows,
                results.isEmpty() ? null : FallbackNote.of(results.get(0).decisions(), "hot-key"));
    }
}
