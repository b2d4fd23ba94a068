package dev.tollgate.spring.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.ManualClock;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class MalformedRequestLogTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40000);

    @Test
    void logsAtMostTheConfiguredRateAndCountsTheRest() {
        ManualClock clock = new ManualClock();
        MalformedRequestLog log = new MalformedRequestLog(2, clock);
        for (int i = 0; i < 10; i++) {
            log.malformed(CLIENT, "head", new IllegalArgumentException("bad"));
        }
        assertThat(log.suppressed()).isEqualTo(8);

        clock.advanceMillis(500); // one more line's worth
        log.malformed(CLIENT, "head", new IllegalArgumentException("bad"));
        assertThat(log.suppressed()).isZero(); // that line reported the 8 left out
    }

    @Test
    void zeroLogsNothing() {
        MalformedRequestLog log = new MalformedRequestLog(0, new ManualClock());
        log.malformed(CLIENT, "body", new IllegalArgumentException("bad"));
        assertThat(log.suppressed()).isZero();
    }
}
