package dev.tollgate.bench.report;

import dev.tollgate.bench.SuitePlan;
import dev.tollgate.bench.load.HttpTarget;

/** How the figures were measured; template {@code report/method.mustache}. */
record MethodSection(SuitePlan plan, int connections, String tenants, int rounds, String warmUpRequests) {

    static MethodSection of(Figures f) {
        return new MethodSection(f.plan(), HttpTarget.CONNECTIONS,
                Fmt.rate(f.plan().latencyTenants()), f.rounds(), Fmt.rate(f.plan().warmUpRequests()));
    }
}
