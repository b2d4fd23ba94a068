package dev.tollgate.bench.report;

import dev.tollgate.bench.scenario.ParallelBurst;
import java.util.List;
import java.util.Locale;

/** The parallel-burst check on one bucket; template {@code report/burst.mustache}. */
record BurstSection(List<Row> rows, boolean measured) {

    record Row(String limiter, int requests, int clients, long admitted, String bound, String elapsed, long errors,
               String verdict, String decisions) {
    }

    static BurstSection of(Figures f) {
        List<Row> rows = f.results().burst().stream().map(BurstSection::row).toList();
        return new BurstSection(rows, !rows.isEmpty());
    }

    private static Row row(ParallelBurst.Result r) {
        return new Row(r.limiter(), r.requests(), r.clients(), r.admitted(),
                String.format(Locale.ROOT, "%.1f", r.bound()), String.format(Locale.ROOT, "%.2f s", r.elapsedSeconds()),
                r.errors(), Fmt.verdict(r.withinBound(), "over by " + String.format(Locale.ROOT, "%.1f",
                        r.admitted() - r.bound())), r.decisions().shares());
    }
}
