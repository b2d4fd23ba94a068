package dev.tollgate.bench.report;

import java.util.List;
import java.util.Locale;

/** Redis memory per bucket of each limiter; template {@code report/memory.mustache}. */
record MemorySection(String tenants, int routes, List<Row> rows, String threeLimits, int statesPerTenant) {

    /** One limiter's buckets. */
    record Row(String limiter, long buckets, long keys, String added, String perBucket, long sampleKeyBytes,
               String fillRate) {
    }

    static MemorySection of(Figures f) {
        return new MemorySection(Fmt.rate(f.plan().memoryTenants()), f.plan().memoryRoutes().size(),
                f.results().memory().stream().map(m -> new Row(m.limiter(), m.buckets(), m.keys(),
                        String.format(Locale.ROOT, "%.1f MiB", m.bytes() / 1024.0 / 1024.0),
                        Fmt.bytes(m.bytesPerBucket()), m.sampleKeyBytes(), Fmt.rate(m.buckets() / m.seconds())))
                        .toList(), Targets.TOLLGATE_THREE_LIMITS, f.plan().memoryRoutes().size() + 2);
    }
}
