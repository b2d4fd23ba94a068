package dev.tollgate.bench.report;

import dev.tollgate.bench.machine.MachineInfo;
import dev.tollgate.bench.process.JavaCommand;
import dev.tollgate.bench.suite.SuiteResults;

/** The machine and how busy other work kept it; template {@code report/machine.mustache}. */
record MachineSection(MachineInfo info, String jvmOptions, String loadAtEnd, String otherBefore,
                      String otherMedian, String otherMax) {

    static MachineSection of(Figures f) {
        SuiteResults results = f.results();
        return new MachineSection(results.machine(), String.join(" ", JavaCommand.JVM_OPTIONS),
                results.loadAverageAtEnd(), Fmt.fmt2(results.otherWorkCoresBefore()), Fmt.fmt2(f.otherWorkMedian()),
                Fmt.fmt2(f.otherWorkMax()));
    }
}
