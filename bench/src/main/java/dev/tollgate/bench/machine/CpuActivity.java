package dev.tollgate.bench.machine;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

/**
 * How much CPU other work on the machine uses: the CPU time of every process, minus that of this
 * JVM and the processes it started (Redis, upstream, gateways). Other builds and test suites share
 * this machine; their CPU use is the noise in the benchmark's figures, so the report states it.
 *
 * <p>Both sides are summed from the same per-process counters (user + kernel time, read by OSHI
 * from {@code /proc/<pid>/stat} on Linux), so they agree with each other; the machine-wide counters
 * of {@code /proc/stat} were tried first and disagree with them by a few tenths of a core over a
 * few seconds on this virtual machine. Error bound: processes that start and end between two
 * readings are missed, so short-lived other work is under-counted; a reading takes about a tenth
 * of a second (a hundred processes), against runs of seconds.
 */
public final class CpuActivity {

    private static final OperatingSystem OS = new SystemInfo().getOperatingSystem();

    /** A reading of the counters; differences of two readings give the CPU used in between. */
    public record Snapshot(long nanoTime, long allMillis, long ourMillis) {

        /** Cores used on average by other work between {@code earlier} and this snapshot. */
        public double otherWorkCoresSince(Snapshot earlier) {
            double seconds = (nanoTime - earlier.nanoTime) / 1e9;
            if (seconds <= 0 || allMillis == 0) {
                return Double.NaN;
            }
            long other = (allMillis - earlier.allMillis) - (ourMillis - earlier.ourMillis);
            return Math.max(0, other / 1000.0 / seconds);
        }
    }

    private CpuActivity() {
    }

    public static Snapshot snapshot() {
        Set<Long> ours;
        try (Stream<ProcessHandle> children = ProcessHandle.current().descendants()) {
            ours = children.map(ProcessHandle::pid).collect(Collectors.toCollection(HashSet::new));
        }
        ours.add(ProcessHandle.current().pid());
        long all = 0;
        long mine = 0;
        for (OSProcess process : OS.getProcesses()) {
            long millis = process.getUserTime() + process.getKernelTime();
            all += millis;
            if (ours.contains((long) process.getProcessID())) {
                mine += millis;
            }
        }
        return new Snapshot(System.nanoTime(), all, mine);
    }

    /**
     * Waits until other work uses less than {@code maxCores} (over a 2-second sample), at most
     * {@code maxWait}; returns the last reading, in cores.
     */
    public static double awaitQuiet(double maxCores, Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        double cores;
        do {
            Snapshot before = snapshot();
            sleep(Duration.ofSeconds(2));
            cores = snapshot().otherWorkCoresSince(before);
        } while (!(cores < maxCores) && !Double.isNaN(cores) && System.nanoTime() < deadline);
        return cores;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
