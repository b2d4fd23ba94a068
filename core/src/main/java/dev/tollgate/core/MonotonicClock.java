package dev.tollgate.core;

/**
 * What Tollgate's Java code measures every duration and deadline on: a monotonic clock, never wall
 * time, so NTP steps cannot refill or drain a local bucket (the time of day, for people and for later
 * processes, is {@link WallClock}'s). Production code uses {@link #system()}; tests inject a
 * {@code ManualClock} (core's test-jar) and move time by hand instead of sleeping.
 *
 * <p>Buckets kept in Redis do not use this clock at all: they use Redis's own {@code TIME}, so
 * gateway instances with skewed clocks still agree.
 */
@FunctionalInterface
public interface MonotonicClock {

    /** Nanoseconds from an arbitrary origin; only differences are meaningful. */
    long nanoTime();

    /** Milliseconds from the same origin, rounded down. */
    default long millis() {
        return Math.floorDiv(nanoTime(), 1_000_000L);
    }

    /** The JVM's monotonic clock ({@link System#nanoTime()}). */
    static MonotonicClock system() {
        return System::nanoTime;
    }
}
