package dev.tollgate.core.limits;

/**
 * What one limit remembers between requests (in the reference model; the Redis script keeps the same
 * numbers). A missing state is a full bucket or an unused quota.
 */
public sealed interface LimitState {

    /**
     * A token bucket as last written.
     *
     * @param tokens   micro-tokens it held at {@code tsMillis}, 0 or more
     * @param tsMillis the time of that refill, epoch ms on the deciding clock (Redis's)
     */
    record Bucket(long tokens, long tsMillis) implements LimitState {
        public Bucket {
            if (tokens < 0 || tsMillis < 0) {
                throw new IllegalArgumentException("tokens and ts are never negative: " + tokens + ", " + tsMillis);
            }
        }
    }

    /**
     * A calendar quota's count.
     *
     * @param windowStartMillis the start of the window the count is for ({@link CalendarWindow#startMillis()})
     * @param used              what was admitted in it, in units of cost
     */
    record Quota(long windowStartMillis, long used) implements LimitState {
        public Quota {
            if (windowStartMillis < 0 || used < 0) {
                throw new IllegalArgumentException("window start and count are never negative: "
                        + windowStartMillis + ", " + used);
            }
        }
    }
}
