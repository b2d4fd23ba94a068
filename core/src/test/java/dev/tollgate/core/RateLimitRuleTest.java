package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RateLimitRuleTest {

    @Test
    void convertsToExactIntegerLimits() {
        BucketLimits limits = new RateLimitRule(200, 100, 2).limits();
        assertThat(limits.capacityMicros()).isEqualTo(200_000_000L);
        assertThat(limits.refillMicrosPerMilli()).isEqualTo(100_000L);
        assertThat(limits.costMicros()).isEqualTo(2_000_000L);
        assertThat(RateLimitRule.of(1, 0.001).limits().refillMicrosPerMilli()).isEqualTo(1);
        assertThat(RateLimitRule.of(1, 0.1).limits().refillMicrosPerMilli()).isEqualTo(100);
    }

    @Test
    void refusesBadValuesNamingThem() {
        assertThatThrownBy(() -> RateLimitRule.of(0, 1)).hasMessageContaining("capacity").hasMessageContaining("0");
        assertThatThrownBy(() -> RateLimitRule.of(1, 0)).hasMessageContaining("refillPerSecond");
        assertThatThrownBy(() -> RateLimitRule.of(1, -5)).hasMessageContaining("-5");
        assertThatThrownBy(() -> RateLimitRule.of(1, Double.NaN)).hasMessageContaining("NaN");
        assertThatThrownBy(() -> RateLimitRule.of(1, 0.0005)).hasMessageContaining("three decimals");
        assertThatThrownBy(() -> RateLimitRule.of(RateLimitRule.MAX_CAPACITY + 1, 1))
                .hasMessageContaining("capacity");
        assertThatThrownBy(() -> new RateLimitRule(5, 1, 0)).hasMessageContaining("cost");
    }

    @Test
    void retryAfterSecondsRoundsUp() {
        assertThat(new Decision(false, 0, 1, 1, 1).retryAfterSeconds()).isEqualTo(1);
        assertThat(new Decision(false, 0, 1, 1000, 1).retryAfterSeconds()).isEqualTo(1);
        assertThat(new Decision(false, 0, 1, 1001, 1).retryAfterSeconds()).isEqualTo(2);
        assertThat(new Decision(false, 0, 1, Decision.NEVER, 1).retryAfterSeconds()).isEqualTo(Decision.NEVER);
    }
}
