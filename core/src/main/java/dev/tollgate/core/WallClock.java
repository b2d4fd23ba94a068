package dev.tollgate.core;

import java.time.Instant;

/**
 * The time of day, for what is shown to people or read back by a later process: never to measure a
 * duration within this process, which is {@link MonotonicClock}'s job (the time of day can be set
 * back, or stepped by NTP). Production code uses {@link #system()}; tests pass a lambda over a time
 * they set.
 */
@FunctionalInterface
public interface WallClock {

    /** Now, on this clock. */
    Instant now();

    /** Milliseconds since the epoch, as {@link System#currentTimeMillis()}. */
    default long currentTimeMillis() {
        return now().toEpochMilli();
    }

    /** The host's clock. */
    static WallClock system() {
        return Instant::now;
    }
}
