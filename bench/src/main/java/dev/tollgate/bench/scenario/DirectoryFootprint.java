package dev.tollgate.bench.scenario;

import dev.tollgate.bench.jmh.DirectoryLoadBenchmark;
import dev.tollgate.spring.directory.DirectorySnapshot;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The heap a full directory snapshot keeps (100,000 tenants on 3 plans, beside 100,000
 * rules), which JMH's timing of {@link DirectoryLoadBenchmark} does not say: the same fixture is
 * loaded in this JVM and the heap in use after a full collection is read with the snapshot held and
 * again once it is dropped; the difference is what the snapshot retains (its maps, strings, rule and
 * plan objects), not what loading it allocated on the way.
 *
 * <p>Error bound: {@link System#gc()} on G1 is a full, stop-the-world collection, so both readings
 * count live objects only; what else this JVM allocates and keeps between the two readings (a pool
 * thread's buffers, class loading) is in the difference. That is well under 1 MB here, against tens
 * of MB measured, and the median of {@link #REPEATS} loads is reported. The time of the first load,
 * in a JVM that has not run this code yet, is reported beside it: an instance's load at start.
 */
public final class DirectoryFootprint {

    static final int REPEATS = 3;

    /**
     * One directory's snapshot.
     *
     * @param directory      {@code rules} or {@code plans} ({@link DirectoryLoadBenchmark#directory})
     * @param retainedBytes  heap the snapshot retains (median of {@link #REPEATS})
     * @param firstLoadMillis the first full load in this JVM, cold code paths
     */
    public record Result(String directory, double retainedBytes, double firstLoadMillis) {
    }

    private DirectoryFootprint() {
    }

    public static Result measure(String directory) {
        DirectoryLoadBenchmark fixture = new DirectoryLoadBenchmark();
        fixture.directory = directory;
        try {
            fixture.startPostgres();
            try {
                long start = System.nanoTime();
                DirectorySnapshot first = fixture.fullLoad();
                double firstMillis = (System.nanoTime() - start) / 1e6;
                Reference.reachabilityFence(first);
                first = null;
                List<Double> retained = new ArrayList<>();
                for (int i = 0; i < REPEATS; i++) {
                    long before = usedAfterFullGc();
                    DirectorySnapshot held = fixture.fullLoad();
                    long with = usedAfterFullGc();
                    Reference.reachabilityFence(held);
                    retained.add((double) (with - before));
                }
                return new Result(directory, Median.of(retained), firstMillis);
            } finally {
                fixture.stopPostgres();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("directory load of " + directory + " failed", e);
        }
    }

    private static long usedAfterFullGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        // Twice: the first collection may leave objects whose finalisation or reference processing
        // the second clears.
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
