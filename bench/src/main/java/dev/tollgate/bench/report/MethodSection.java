package dev.tollgate.bench.report;

import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.scenario.WarmUp;
import dev.tollgate.bench.suite.SuitePlan;
import java.util.List;

/** How the figures were measured; template {@code report/method.mustache}. */
record MethodSection(SuitePlan plan, int connections, String tenants, int rounds, String warmUpRequests,
                     String warmUpLimit, String quietCompilation, List<WarmUpRow> warmUps, boolean hasWarmUps) {

    /** How one target's warm-up ended. */
    record WarmUpRow(String target, String served, String lastRate, String compiling, String ended) {
    }

    static MethodSection of(Figures f) {
        List<WarmUpRow> warmUps = f.results().warmUps().stream().map(w -> new WarmUpRow(w.target(),
                Fmt.rate(w.served()), Fmt.rate(w.lastRate()),
                Double.isNaN(w.lastCompilationShare()) ? "—" : Fmt.pct(w.lastCompilationShare()),
                w.steady() ? "settled" : "**not settled** at the time limit")).toList();
        return new MethodSection(f.plan(), HttpTarget.CONNECTIONS,
                Fmt.rate(f.plan().latencyTenants()), f.rounds(), Fmt.rate(f.plan().warmUpRequests()),
                Fmt.pct(WarmUp.STEADY_GAIN), Fmt.pct(WarmUp.QUIET_COMPILATION), warmUps, !warmUps.isEmpty());
    }
}
