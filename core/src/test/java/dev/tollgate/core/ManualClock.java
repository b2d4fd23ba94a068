package dev.tollgate.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that only moves when told to. For tests and simulations: time never passes on its own,
 * and it never moves backwards.
 */
public final class ManualClock implements MonotonicClock {

    private final AtomicLong nanos;

    public ManualClock() {
        this(0L);
    }

    public ManualClock(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("a monotonic clock cannot move backwards: " + duration);
        }
        nanos.addAndGet(duration.toNanos());
    }

    public void advanceMillis(long millis) {
        advance(Duration.ofMillis(millis));
    }
}
