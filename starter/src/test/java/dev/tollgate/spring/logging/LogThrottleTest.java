package dev.tollgate.spring.logging;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.core.ManualClock;
import org.junit.jupiter.api.Test;

class LogThrottleTest {

    @Test
    void letsThroughOneSecondsWorthThenSaysHowManyWereLeftOut() {
        ManualClock clock = new ManualClock();
        LogThrottle throttle = new LogThrottle("test", 2, clock);
        assertThat(throttle.admit()).isEmpty();
        assertThat(throttle.admit()).isEmpty();
        for (int i = 0; i < 5; i++) {
            assertThat(throttle.admit()).isNull();
        }
        assertThat(throttle.suppressed()).isEqualTo(5);

        clock.advanceMillis(499); // not yet a whole line's worth
        assertThat(throttle.admit()).isNull();
        clock.advanceMillis(1);
        assertThat(throttle.admit()).isEqualTo(" (6 similar lines left out)");
        assertThat(throttle.suppressed()).isZero();
    }

    @Test
    void zeroLetsNothingThroughAndCountsNothing() {
        LogThrottle throttle = new LogThrottle("test", 0, new ManualClock());
        assertThat(throttle.admit()).isNull();
        assertThat(throttle.suppressed()).isZero();
    }
}
