package dev.tollgate.spring.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.ManualClock;
import org.junit.jupiter.api.Test;

class RejectionLogTest {

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
