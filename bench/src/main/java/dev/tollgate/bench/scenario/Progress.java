package dev.tollgate.bench.scenario;

import java.time.Duration;

/** Prints what the suite is doing, with the time since it started, so a long run can be followed. */
public final class Progress {

    private final long start = System.nanoTime();

    public void say(String format, Object... args) {
        long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
        System.out.printf("[%3d:%02d] %s%n", seconds / 60, seconds % 60, String.format(format, args));
        System.out.flush();
    }

    /** {@link System#nanoTime()} when the suite started. */
    public long startNanos() {
        return start;
    }

    public Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
