package dev.tollgate.bench.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CpuActivityTest {

    @Test
    void otherWorkIsEveryProcessesCpuLessOursPerSecond() {
        CpuActivity.Snapshot before = new CpuActivity.Snapshot(1_000_000_000L, 50_000, 20_000);
        CpuActivity.Snapshot after = new CpuActivity.Snapshot(3_000_000_000L, 55_000, 22_000);

        // 5 s of CPU in 2 s, 2 s of it ours: other work used 1.5 cores.
        assertThat(after.otherWorkCoresSince(before)).isCloseTo(1.5, within(1e-9));
        assertThat(before.otherWorkCoresSince(before)).isNaN();
    }

    @Test
    void aChildProcessesCpuCountsAsOurs() throws Exception {
        Process child = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
        try {
            // Let the child burn some CPU, then read: it must be in our share, not in other work's.
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            long childMillis = 0;
            while (childMillis < 200 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                childMillis = child.info().totalCpuDuration().map(Duration::toMillis).orElse(0L);
            }
            long jvmMillis = ProcessHandle.current().info().totalCpuDuration().map(Duration::toMillis).orElse(0L);
            CpuActivity.Snapshot snapshot = CpuActivity.snapshot();

            assertThat(childMillis).isGreaterThanOrEqualTo(200);
            // OSHI and the JDK read the same counters; allow a tick of rounding per process.
            assertThat(snapshot.ourMillis()).isGreaterThanOrEqualTo(childMillis + jvmMillis - 20);
            assertThat(snapshot.allMillis()).isGreaterThan(snapshot.ourMillis());
        } finally {
            child.destroyForcibly().waitFor();
        }
    }
}
