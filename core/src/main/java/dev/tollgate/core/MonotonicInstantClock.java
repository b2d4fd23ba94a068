package dev.tollgate.core;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A {@link MonotonicClock} seen through {@link java.time.Clock}, for libraries that take a
 * {@code java.time.Clock} to time waits and windows (Resilience4j's circuit breaker). Its instants
 * count the time since this object was made, starting at the epoch: they are never a time of day, so
 * stepping the host's clock back or forward does not stretch or cut a wait timed on them.
 */
public final class MonotonicInstantClock extends Clock {

    private final MonotonicClock clock;
    private final long origin;
    private final ZoneId zone;

    public MonotonicInstantClock(MonotonicClock clock) {
        this(clock, clock.nanoTime(), ZoneOffset.UTC);
    }

    private MonotonicInstantClock(MonotonicClock clock, long origin, ZoneId zone) {
        this.clock = clock;
        this.origin = origin;
        this.zone = zone;
    }

    @Override
    public Instant instant() {
        // Instant.EPOCH plus the elapsed nanoseconds: never negative, so a library that indexes by
        // epoch second (a time-based sliding window) sees small, growing numbers.
        return Instant.ofEpochSecond(0, clock.nanoTime() - origin);
    }

    @Override
    public long millis() {
        return Math.floorDiv(clock.nanoTime() - origin, 1_000_000L);
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    /** The same instants (same origin) in another zone, as {@link Clock} asks. */
    @Override
    public Clock withZone(ZoneId zone) {
        return new MonotonicInstantClock(clock, origin, zone);
    }
}
