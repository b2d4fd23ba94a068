package dev.tollgate.spring.directory.refresh;

import dev.tollgate.spring.directory.Directory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** The directory's gauges: what is held in memory, and how old it is. */
final class DirectoryGauges {

    private DirectoryGauges() {
    }

    static void register(MeterRegistry meters, Directory directory, RefreshStatus status) {
        Gauge.builder("tollgate.directory.rules", directory, d -> d.snapshot().rules().size())
                .description("Rules held in memory (the default rule not counted)").register(meters);
        Gauge.builder("tollgate.directory.keys", directory, d -> d.snapshot().tenantByKey().size())
                .description("Active API keys held in memory").register(meters);
        Gauge.builder("tollgate.directory.snapshot.age", status, RefreshStatus::snapshotAgeSeconds)
                .description("Seconds since the in-memory rules were last confirmed against the database"
                        + " (NaN before the first load)")
                .baseUnit("seconds").register(meters);
    }
}
