package dev.tollgate.spring.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AuthFailureLimiterTest {

    private final ManualClock clock = new ManualClock();
    private final AuthFailureLimiter limiter = new AuthFailureLimiter(30, Duration.ofMinutes(1), 1_000, clock);

    @Test
    void anAddressIsBlockedAfterItsBudgetUntilOneFailureHasRefilled() {
        for (int i = 0; i < 29; i++) {
            limiter.failed("198.51.100.1/32");
            assertThat(limiter.blockedForMillis("198.51.100.1/32")).as("after %d failures", i + 1).isZero();
        }
        limiter.failed("198.51.100.1/32");
        assertThat(limiter.blockedForMillis("198.51.100.1/32")).isEqualTo(2_000); // one failure every 2 s
        assertThat(limiter.blockedForMillis("198.51.100.2/32")).as("other addresses unaffected").isZero();
        clock.advanceMillis(1_999);
        assertThat(limiter.blockedForMillis("198.51.100.1/32")).isEqualTo(1);
        clock.advanceMillis(1);
        assertThat(limiter.blockedForMillis("198.51.100.1/32")).isZero();
        limiter.failed("198.51.100.1/32");
        assertThat(limiter.blockedForMillis("198.51.100.1/32")).as("one more, then blocked again").isEqualTo(2_000);
        assertThat(limiter.refused()).as("the answers that refused (tollgate.auth.failures.refused)").isEqualTo(3);
    }

    @Test
    void aSteadyFailureRateBelowTheBudgetIsNeverBlocked() {
        for (int i = 0; i < 1_000; i++) {
            limiter.failed("198.51.100.1/32");
            assertThat(limiter.blockedForMillis("198.51.100.1/32")).isZero();
            clock.advance(Duration.ofSeconds(2));
        }
        assertThat(limiter.refused()).isZero();
    }

    @Test
    void refilledAddressesAreForgottenAndTheMapNeverPassesItsBound() {
        AuthFailureLimiter small = new AuthFailureLimiter(2, Duration.ofSeconds(10), 100, clock);
        for (int i = 0; i < 1_000_000; i++) {
            small.failed("anon-" + i);
        }
        assertThat(small.tracked()).isEqualTo(100);
        small.failed("anon-0");
        assertThat(small.blockedForMillis("anon-0")).as("tracked ones are still counted").isPositive();
        assertThat(small.blockedForMillis("anon-500")).as("past the bound: not counted (fails open)").isZero();
        clock.advance(Duration.ofSeconds(9));
        small.evictRefilled();
        assertThat(small.tracked()).as("anon-0's budget has not refilled yet").isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));
        small.evictRefilled();
        assertThat(small.tracked()).isZero();
        small.failed("anon-500");
        small.failed("anon-500");
        assertThat(small.blockedForMillis("anon-500")).isEqualTo(5_000);
    }
}
