package dev.tollgate.bench.report;

import java.util.List;
import java.util.stream.Stream;

/** Every load run of the report, in the order it ran; template {@code report/runs.mustache}. */
record RunsSection(List<String> lines) {

    static RunsSection of(Figures f) {
        return new RunsSection(Stream.concat(
                f.results().latency().stream().map(r -> "latency    round " + r.repetition() + "  " + r.result().summary()),
                f.results().saturation().stream().map(r -> "saturation " + r.mix() + " round " + r.repetition() + "  "
                        + r.result().summary()))
                .toList());
    }
}
