package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LocalFallbackLimiterTest {

    private final ManualClock clock = new ManualClock();

    @Test
    void shouldRejectWhenBucketEmptyAndRefillOverTime() {
        var limiter = new LocalFallbackLimiter(1, clock);
        var rule = RateLimitRule.of(2, 1); // burst 2, one token per second

        assertThat(limiter.tryAcquire(new BucketKey("shop-a", "create-order"), rule.limits()).allowed()).isTrue();
        assertThat(limiter.tryAcquire(new BucketKey("shop-a", "create-order"), rule.limits()).allowed()).isTrue();
        assertThat(limiter.tryAcquire(new BucketKey("shop-a", "create-order"), rule.limits()).allowed()).isFalse();

        clock.advanceMillis(1_000); // one more token after a second
        Decision d = limiter.tryAcquire(new BucketKey("shop-a", "create-order"), rule.limits());
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isZero();
    }

    @Test
    void refillIsCappedAtCapacity() {
        var limiter = new LocalFallbackLimiter(1, clock);
        var rule = RateLimitRule.of(3, 100);
        limiter.tryAcquire(new BucketKey("t", "r"), rule.limits());
        clock.advanceMillis(60_000);
        assertThat(limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).remaining()).isEqualTo(2);
    }

    @Test
    void longIdleRefillsWithoutOverflow() {
        var limiter = new LocalFallbackLimiter(1, clock);
        var rule = RateLimitRule.of(RateLimitRule.MAX_CAPACITY, RateLimitRule.MAX_REFILL_PER_SECOND);
        limiter.tryAcquire(new BucketKey("t", "r"), rule.limits());
        clock.advanceMillis(Long.MAX_VALUE / 2_000_000L); // ~146 years
        assertThat(limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).remaining()).isEqualTo(RateLimitRule.MAX_CAPACITY - 1);
    }

    @Test
    void fractionalRefillRateAccumulatesAcrossCalls() {
        var limiter = new LocalFallbackLimiter(1, clock);
        var rule = RateLimitRule.of(1, 0.25); // one token every 4 s
        limiter.tryAcquire(new BucketKey("t", "r"), rule.limits());
        for (int second = 1; second < 4; second++) {
            clock.advanceMillis(1000);
            assertThat(limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()).as("after %d s", second).isFalse();
        }
        clock.advanceMillis(1000);
        assertThat(limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()).isTrue();
    }

    @Test
    void aClockThatStandsStillNeverRefills() {
        var limiter = new LocalFallbackLimiter(1, clock);
        var rule = RateLimitRule.of(1, 1_000);
        assertThat(limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()).isTrue();
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()).isFalse();
        }
    }

    @Test
    void costAboveCapacityIsRefusedByTheRule() {
        assertThatThrownBy(() -> new RateLimitRule(2, 1, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cost")
                .hasMessageContaining("3");
    }

    @Test
    void eachInstanceEnforcesItsShare() {
        var limiter = new LocalFallbackLimiter(4, clock);
        var rule = RateLimitRule.of(200, 100); // per instance: burst 50, 25 tokens/s
        int allowed = 0;
        for (int i = 0; i < 100; i++) {
            if (limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()) {
                allowed++;
            }
        }
        assertThat(allowed).isEqualTo(50);

        clock.advanceMillis(1000);
        allowed = 0;
        for (int i = 0; i < 100; i++) {
            if (limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()) {
                allowed++;
            }
        }
        assertThat(allowed).isEqualTo(25);
    }

    @Test
    void admissionsRecordedWhileRedisDecidedAreTakenFromTheShare() {
        var limiter = new LocalFallbackLimiter(4, clock);
        var rule = RateLimitRule.of(200, 100); // per instance: burst 50, 25 tokens/s
        for (int i = 0; i < 30; i++) {
            limiter.recordAdmitted(new BucketKey("t", "r"), rule.limits());
        }
        assertThat(allowed(limiter, rule, 100)).isEqualTo(20);

        // Recording more than the share empties it and no further: the refill counts from zero.
        for (int i = 0; i < 80; i++) {
            limiter.recordAdmitted(new BucketKey("t", "r"), rule.limits());
        }
        clock.advanceMillis(400);
        assertThat(allowed(limiter, rule, 100)).isEqualTo(10);
        // Other keys keep their whole share.
        assertThat(limiter.tryAcquire(new BucketKey("other", "r"), rule.limits()).remaining()).isEqualTo(49);
    }

    @Test
    void whatItAdmitsOnItsOwnIsOwedUntilTakenOrUntilItsBucketIsFullAgain() {
        var limiter = new LocalFallbackLimiter(4, clock);
        var rule = RateLimitRule.of(200, 100); // per instance: burst 50, 25 tokens/s
        BucketKey key = new BucketKey("t", "r");
        assertThat(allowed(limiter, rule, 100)).isEqualTo(50);
        assertThat(limiter.takeUnreported(key)).isEqualTo(50 * BucketLimits.MICROS_PER_TOKEN);
        assertThat(limiter.takeUnreported(key)).isZero(); // taken once

        clock.advanceMillis(400); // 10 tokens back
        assertThat(allowed(limiter, rule, 10)).isEqualTo(10);
        clock.advanceMillis(100); // not full yet: still owed
        limiter.evictFullBuckets();
        assertThat(limiter.takeUnreported(key)).isEqualTo(10 * BucketLimits.MICROS_PER_TOKEN);

        clock.advanceMillis(400);
        assertThat(allowed(limiter, rule, 10)).isEqualTo(10);
        clock.advanceMillis(2_000); // a whole fill time later: full, dropped, nothing owed
        limiter.evictFullBuckets();
        assertThat(limiter.takeUnreported(key)).isZero();
    }

    private static int allowed(LocalFallbackLimiter limiter, RateLimitRule rule, int requests) {
        int allowed = 0;
        for (int i = 0; i < requests; i++) {
            if (limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()) {
                allowed++;
            }
        }
        return allowed;
    }

    @Test
    void aShareNeverDropsBelowOneRequest() {
        var limiter = new LocalFallbackLimiter(20, clock);
        var rule = RateLimitRule.of(2, 1); // 2/20 of a token would never admit anything
        assertThat(limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()).isTrue();
        assertThat(limiter.tryAcquire(new BucketKey("t", "r"), rule.limits()).allowed()).isFalse();
    }

    @Test
    void followsAChangingInstanceCount() {
        AtomicInteger instances = new AtomicInteger(1);
        var limiter = new LocalFallbackLimiter(instances::get, clock);
        var rule = RateLimitRule.of(10, 1);
        limiter.tryAcquire(new BucketKey("t", "r"), rule.limits());
        instances.set(5);
        Decision d = limiter.tryAcquire(new BucketKey("t", "r"), rule.limits());
        assertThat(d.limit()).isEqualTo(2);
        assertThat(d.remaining()).isEqualTo(1);
    }
}
