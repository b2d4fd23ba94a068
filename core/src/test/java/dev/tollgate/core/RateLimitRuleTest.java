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

    @Test
    void aRegionalShareScalesTheCapacityExactlyAndTheRateDown() {
        RateLimitRule rule = new RateLimitRule(3, 10.001, 1).inRegion(700_000);
        BucketLimits limits = rule.limits();
        assertThat(limits.capacityMicros()).isEqualTo(2_100_000L); // 3 × 0.7 tokens, exactly
        assertThat(limits.refillMicrosPerMilli()).isEqualTo(7000L); // 10001 × 0.7 = 7000.7, rounded down
        assertThat(limits.costMicros()).isEqualTo(1_000_000L);
        assertThat(rule.capacity()).as("the rule as written is kept").isEqualTo(3);
        assertThat(rule.regionSharePpm()).isEqualTo(700_000);
        assertThat(rule.inRegion(RateLimitRule.WHOLE_SHARE_PPM).limits()).isEqualTo(new RateLimitRule(3, 10.001, 1).limits());
    }

    @Test
    void aRegionalShareNeverHoldsLessThanOneRequestNorRefillsSlowerThanTheFloor() {
        BucketLimits tiny = new RateLimitRule(10, 0.001, 2).inRegion(50_000).limits();
        assertThat(tiny.capacityMicros()).as("10 × 0.05 = 0.5 tokens, raised to the cost").isEqualTo(2_000_000L);
        assertThat(tiny.refillMicrosPerMilli()).isEqualTo(1);
        assertThatThrownBy(() -> RateLimitRule.of(1, 1).inRegion(0)).hasMessageContaining("regionSharePpm");
        assertThatThrownBy(() -> RateLimitRule.of(1, 1).inRegion(1_000_001)).hasMessageContaining("1000001");
    }

    @Test
    void sharesThatSumToOneNeverAddUpToMoreThanTheRuleWhereNoFloorApplies() {
        RandomizedCheck.forAll(2000, random -> {
            long capacity = RandomizedCheck.between(random, 1, RateLimitRule.MAX_CAPACITY);
            double rate = RandomizedCheck.between(random, 1, 1_000_000_000_000L) / 1000d;
            int regions = random.nextInt(1, 6);
            int[] ppm = new int[regions];
            int left = RateLimitRule.WHOLE_SHARE_PPM;
            for (int i = 0; i < regions - 1; i++) {
                ppm[i] = random.nextInt(1, left - (regions - 1 - i) + 1);
                left -= ppm[i];
            }
            ppm[regions - 1] = left;
            RateLimitRule rule = RateLimitRule.of(capacity, rate);
            long capacitySum = 0;
            long rateSum = 0;
            boolean floored = false;
            for (int share : ppm) {
                BucketLimits limits = rule.inRegion(share).limits();
                capacitySum += limits.capacityMicros();
                rateSum += limits.refillMicrosPerMilli();
                floored |= capacity * share < 1_000_000L || rule.limits().refillMicrosPerMilli() * share < 1_000_000L;
            }
            if (!floored) {
                assertThat(capacitySum).isEqualTo(rule.limits().capacityMicros());
                assertThat(rateSum).isLessThanOrEqualTo(rule.limits().refillMicrosPerMilli())
                        .isGreaterThan(rule.limits().refillMicrosPerMilli() - regions);
            } else {
                assertThat(capacitySum).isLessThanOrEqualTo(rule.limits().capacityMicros() + regions * 1_000_000L);
                assertThat(rateSum).isLessThanOrEqualTo(rule.limits().refillMicrosPerMilli() + regions);
            }
        });
    }
}
