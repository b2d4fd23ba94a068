package dev.tollgate.core;

import static dev.tollgate.core.RandomizedCheck.between;
import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenBucketMathTest {

    @Test
    void refillInManyStepsEqualsRefillInOne() {
        forAll(2000, random -> {
            long capacityTokens = between(random, 1, RateLimitRule.MAX_CAPACITY);
            long rate = between(random, 1, 1_000_000_000_000L);
            int steps = (int) between(random, 1, 500);
            long stepMillis = between(random, 0, 10_000);
            BucketLimits limits = new BucketLimits(capacityTokens * BucketLimits.MICROS_PER_TOKEN, rate,
                    BucketLimits.MICROS_PER_TOKEN);
            long stepwise = 0;
            for (int i = 0; i < steps; i++) {
                stepwise = TokenBucketMath.refill(stepwise, stepMillis, limits);
            }
            assertThat(stepwise).isEqualTo(TokenBucketMath.refill(0, steps * stepMillis, limits));
        });
    }

    @Test
    void refillNeverExceedsCapacityNorOverflows() {
        BucketLimits limits = new BucketLimits(1_000_000_000_000_000L, 1_000_000_000_000L, 1);
        forAll(2000, random -> {
            long tokens = between(random, 0, limits.capacityMicros());
            long elapsed = between(random, 0, Long.MAX_VALUE);
            assertThat(TokenBucketMath.refill(tokens, elapsed, limits))
                    .isBetween(tokens, limits.capacityMicros());
        });
    }

    @Test
    void waitIsTheShortestThatSuffices() {
        forAll(2000, random -> {
            long tokens = between(random, 0, 10_000_000);
            long needed = between(random, 1, 10_000_000);
            long rate = between(random, 1, 100_000);
            BucketLimits limits = new BucketLimits(20_000_000, rate, needed);
            long wait = TokenBucketMath.millisUntil(tokens, needed, limits);
            assertThat(tokens + wait * rate).isGreaterThanOrEqualTo(needed);
            if (wait > 0) {
                assertThat(tokens + (wait - 1) * rate).isLessThan(needed);
            }
        });
    }
}
