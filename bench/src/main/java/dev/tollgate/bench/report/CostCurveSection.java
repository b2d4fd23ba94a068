package dev.tollgate.bench.report;

import dev.tollgate.bench.scenario.CostCurve;
import java.util.List;
import java.util.Locale;

/** Redis's cost per 1,000 decisions as tenants and instances grow; template {@code report/cost-curve.mustache}. */
record CostCurveSection(List<Row> rows, String rate, long seconds) {

    record Row(String tenants, int instances, String sending, String decisions, String scriptCalls, String commands,
               String redisCpu) {
    }

    static CostCurveSection of(Figures f) {
        List<Row> rows = f.results().costCurve().stream().map(CostCurveSection::row).toList();
        return new CostCurveSection(rows, Fmt.rate(f.plan().costRate()), f.plan().costRun().toSeconds());
    }

    private static Row row(CostCurve.Point p) {
        return new Row(Fmt.rate(p.tenants()), p.instances(), p.sending(), Fmt.rate(p.decisions()),
                String.format(Locale.ROOT, "%.0f", p.scriptCallsPerThousand()),
                String.format(Locale.ROOT, "%.0f", p.commandsPerThousand()),
                String.format(Locale.ROOT, "%.1f ms", p.redisCpuMillisPerThousand()));
    }
}
