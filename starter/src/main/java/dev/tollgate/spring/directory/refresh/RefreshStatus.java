package dev.tollgate.spring.directory.refresh;

import dev.tollgate.core.MonotonicClock;
import java.time.Duration;
import java.util.Optional;

/**
 * How the refreshes are going, for health and metrics: when the rules in memory were last confirmed
 * against PostgreSQL and whether the last attempt to read it failed. Ages are measured on the
 * injected {@link MonotonicClock}, so a step of the wall clock cannot make a snapshot look younger
 * or older than it is. Written by the refresher's thread, read from any thread.
 */
public final class RefreshStatus {

    private final MonotonicClock clock;
    /** When the snapshot was last confirmed, on {@link #clock}; meaningful once {@link #confirmed}. */
    private volatile long confirmedAtNanos;
    private volatile boolean confirmed;
    private volatile boolean databaseRead;
    private volatile String lastError;
    private volatile boolean startupDone;

    RefreshStatus(MonotonicClock clock) {
        this.clock = clock;
    }

    /** The database was read just now and the snapshot in memory is as it says. */
    void succeeded() {
        confirmedAtNanos = clock.nanoTime();
        confirmed = true;
        databaseRead = true;
        lastError = null;
    }

    /**
     * The snapshot in memory was restored from a file whose content was last confirmed {@code age}
     * ago (measured with the wall clock when it was saved; see {@link dev.tollgate.spring.directory.snapshot.SnapshotFile SnapshotFile}).
     */
    void restored(Duration age) {
        confirmedAtNanos = clock.nanoTime() - age.toNanos();
        confirmed = true;
    }

    /** The database could not be read; returns whether the previous attempt had succeeded (or none was made). */
    boolean failed(Exception e) {
        boolean first = lastError == null;
        lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
        return first;
    }

    void startupDone() {
        startupDone = true;
    }

    /** Whether start-up has finished waiting for the first load (loaded or not). */
    public boolean isStartupDone() {
        return startupDone;
    }

    /** Whether the last attempt to read the database succeeded. */
    public boolean isDatabaseReachable() {
        return databaseRead && lastError == null;
    }

    /** Why the last attempt failed, or null if it did not. */
    public String lastError() {
        return lastError;
    }

    /**
     * Time since the rules and keys in memory were last confirmed against the database (for a
     * snapshot restored from its file, counted from when the file's content was); empty while there
     * is none.
     */
    public Optional<Duration> snapshotAge() {
        if (!confirmed) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(Math.max(0, clock.nanoTime() - confirmedAtNanos)));
    }

    /** {@link #snapshotAge()} in seconds, or NaN while there is none: the gauge's value. */
    double snapshotAgeSeconds() {
        return snapshotAge().map(age -> age.toNanos() / 1e9).orElse(Double.NaN);
    }
}
