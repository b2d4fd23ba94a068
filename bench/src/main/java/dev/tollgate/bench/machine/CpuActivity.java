package dev.tollgate.bench.machine;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * How much CPU other work on the machine uses: the CPU time of every process, minus that of this
 * JVM and the processes it started (Redis, upstream, gateways). Other builds and test suites share
 * this machine; their CPU use is the noise in the benchmark's figures, so the report states it.
 *
 * <p>Both sides are summed from the same per-process counters ({@code utime + stime} in
 * {@code /proc/<pid>/stat}), so they agree with each other; the machine-wide counters of
 * {@code /proc/stat} were tried first and disagree with them by a few tenths of a core over a few
 * seconds on this virtual machine. Error bound: processes that start and end between two readings
 * are missed, so short-lived other work is under-counted. Ticks are taken as 1/100 s, Linux's
 * {@code USER_HZ} on every common architecture.
 */
public final class CpuActivity {

    private static final double TICKS_PER_SECOND = 100;

    /** A reading of the counters; differences of two readings give the CPU used in between. */
    public record Snapshot(long nanoTime, long allTicks, long ourTicks) {

        /** Cores used on average by other work between {@code earlier} and this snapshot. */
        public double otherWorkCoresSince(Snapshot earlier) {
            double seconds = (nanoTime - earlier.nanoTime) / 1e9;
            if (seconds <= 0 || allTicks == 0) {
                return Double.NaN;
            }
            long other = (allTicks - earlier.allTicks) - (ourTicks - earlier.ourTicks);
            return Math.max(0, other / TICKS_PER_SECOND / seconds);
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
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path dir : proc) {
                long ticks = ticksOf(dir);
                all += ticks;
                if (ours.contains(Long.parseLong(dir.getFileName().toString()))) {
                    mine += ticks;
                }
            }
        } catch (IOException | RuntimeException e) {
            return new Snapshot(System.nanoTime(), 0, 0);
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

    /** utime + stime of a process (all its threads), 0 if it is gone. */
    private static long ticksOf(Path procDir) {
        try {
            String stat = Files.readString(procDir.resolve("stat"));
            // Fields after the command name, which is in parentheses and may hold spaces.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
