package dev.tollgate.spring.admin;

import dev.tollgate.core.RateLimitRule;
import java.math.BigDecimal;

/**
 * The body of {@code PUT /admin/rules/{tenant}/{route}}, bound strictly ({@link AdminBodies}). Every
 * field is checked with a message naming it, before anything is stored.
 */
record RuleRequest(Long capacity, BigDecimal refillPerSecond, Long cost, Boolean shadow, Integer shards) {

    private static final BigDecimal MAX_REFILL = BigDecimal.valueOf(RateLimitRule.MAX_REFILL_PER_SECOND);

    /** The validated rule; throws {@link AdminRequestException} naming the first bad field. */
    RateLimitRule validate() {
        if (capacity == null) {
            throw new AdminRequestException("capacity", "capacity is required");
        }
        if (capacity < 1 || capacity > RateLimitRule.MAX_CAPACITY) {
            throw new AdminRequestException("capacity",
                    "capacity must be between 1 and " + RateLimitRule.MAX_CAPACITY + ", was " + capacity);
        }
        if (refillPerSecond == null) {
            throw new AdminRequestException("refillPerSecond", "refillPerSecond is required");
        }
        // Range and scale are compared as numbers (cheap whatever the exponent); only Echo formats the input.
        if (refillPerSecond.signum() <= 0 || refillPerSecond.compareTo(MAX_REFILL) > 0) {
            throw new AdminRequestException("refillPerSecond",
                    "refillPerSecond must be > 0 and <= 1000000000, was " + Echo.of(refillPerSecond));
        }
        if (refillPerSecond.stripTrailingZeros().scale() > 3) {
            throw new AdminRequestException("refillPerSecond",
                    "refillPerSecond has at most three decimals (0.001 token/s), was " + Echo.of(refillPerSecond));
        }
        long c = cost == null ? 1 : cost;
        if (c < 1 || c > capacity) {
            throw new AdminRequestException("cost", "cost must be between 1 and the capacity " + capacity + ", was " + c);
        }
        int n = shards == null ? 1 : shards;
        if (n < 1 || n > RateLimitRule.MAX_SHARDS) {
            throw new AdminRequestException("shards", "shards must be between 1 and " + RateLimitRule.MAX_SHARDS
                    + ", was " + n);
        }
        return new RateLimitRule(capacity, refillPerSecond.doubleValue(), c, Boolean.TRUE.equals(shadow), n);
    }
}
