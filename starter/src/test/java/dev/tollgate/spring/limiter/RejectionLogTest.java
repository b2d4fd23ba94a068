package dev.tollgate.spring.limiter;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.core.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

// Alone: it reads what the whole JVM prints, which a class running beside it would add to.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class RejectionLogTest {

    @Test
    void aTenantWithALineBreakCannotForgeALogLine(CapturedOutput output) {
        // With source: static the tenant is the key a client sent: any text at all.
        RejectionLog log = new RejectionLog(5, new ManualClock());
        log.rejected("shop-a\r\n12:00:00.000 INFO forged line", "create-order", 1, "redis");
        assertThat(output.getOut()).contains("Rejected tenant 'shop-a\\x0d\\x0a12:00:00.000 INFO forged line'")
                .doesNotContain("shop-a\r\n").doesNotContain("\n12:00:00.000 INFO forged line");
    }

    @Test
    void logsAtMostTheConfiguredRateAndCountsTheRest() {
        ManualClock clock = new ManualClock();
        RejectionLog log = new RejectionLog(2, clock);
        for (int i = 0; i < 10; i++) {
            log.rejected("t", "r", 1, "redis");
        }
        assertThat(log.suppressed()).isEqualTo(8);

        clock.advanceMillis(500); // one more line's worth
        log.rejected("t", "r", 1, "redis");
        assertThat(log.suppressed()).isZero(); // that line reported the 8 left out

        log.rejected("t", "r", 1, "redis");
        assertThat(log.suppressed()).isEqualTo(1);
    }

    @Test
    void zeroLogsNothing() {
        RejectionLog log = new RejectionLog(0, new ManualClock());
        log.rejected("t", "r", 1, "redis");
        assertThat(log.suppressed()).isZero();
    }
}
