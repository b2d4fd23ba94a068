package dev.tollgate.bench.machine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * How busy the machine's CPUs are, from {@code /proc}, and how much of that is other work: CPU
 * time of every process minus that of this JVM and the processes it started (Redis, upstream,
 * gateways). Other builds and test suites share this machine; their CPU use is the noise in the
 * benchmark's figures, so the report states it per run.
 */
public final class CpuActivity {

    /** A reading of the counters; differences of two readings give the CPU used in between. */
    public record Snapshot(long totalTicks, long busyTicks, long ourTicks) {

        /** Cores used by other work between {@code earlier} and this snapshot (0 to the core count). */
        public double otherWorkCoresSince(Snapshot earlier) {
            long total = totalTicks - earlier.totalTicks;
            if (total <= 0) {
                return Double.NaN;
            }
            long other = (busyTicks - earlier.busyTicks) - (ourTicks - earlier.ourTicks);
            return Math.max(0, (double) other / total * Runtime.getRuntime().availableProcessors());
        }

        /** Fraction of all CPU time spent busy (by anything) between {@code earlier} and this snapshot. */
        public double busyFractionSince(Snapshot earlier) {
            long total = totalTicks - earlier.totalTicks;
            return total <= 0 ? Double.NaN : (double) (busyTicks - earlier.busyTicks) / total;
        }
    }

    private CpuActivity() {
    }

    public static Snapshot snapshot() {
        long[] machine = machineTicks();
        long ours = ticksOf(ProcessHandle.current().pid());
        try (Stream<ProcessHandle> children = ProcessHandle.current().descendants()) {
            ours += children.mapToLong(p -> ticksOf(p.pid())).sum();
        }
        return new Snapshot(machine[0], machine[1], ours);
    }

    /**
     * Waits until the CPUs are mostly idle (below {@code threshold} busy over a 2-second sample),
     * at most {@code maxWait}; returns the last busy fraction seen. Called while the suite's own
     * servers are idle, so what it sees is other work.
     */
    public static double awaitQuiet(double threshold, Duration maxWait) {
        long deadline = System.nanoTime() + maxWait.toNanos();
        double busy;
        do {
            Snapshot before = snapshot();
            sleep(Duration.ofSeconds(2));
            busy = snapshot().busyFractionSince(before);
        } while (!(busy < threshold) && !Double.isNaN(busy) && System.nanoTime() < deadline);
        return busy;
    }

    /** {total, busy} jiffies of the aggregate "cpu" line of /proc/stat; zeros where /proc is missing. */
    private static long[] machineTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i <= 8 && i < f.length; i++) { // user .. steal; guest is counted in user
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
            return new long[] {total, total - idle};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }

    /** utime + stime of a process (all its threads), 0 if it is gone. */
    private static long ticksOf(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
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
