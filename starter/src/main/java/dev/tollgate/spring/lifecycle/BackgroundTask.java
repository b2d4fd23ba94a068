package dev.tollgate.spring.lifecycle;

import dev.tollgate.core.SerialScheduler;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A periodic job on a {@link SerialScheduler} of its own: nothing runs before {@link #start()}, each
 * run starts one period after the previous one ended, and {@link #close()} stops it with its
 * scheduler. A run that throws is logged and the next one comes as usual: one bad run (Redis gone
 * while leases are given back, say) must not end the job for the rest of the application's life.
 *
 * <p>Wired as a {@link dev.tollgate.spring.lifecycle.BackgroundService}, never as a bare bean of an
 * executor type: an application's scheduling would otherwise find an executor bean of Tollgate's and
 * might use it for its own tasks.
 */
public final class BackgroundTask implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BackgroundTask.class);

    private final String name;
    private final Duration period;
    private final Runnable task;
    private final SerialScheduler scheduler;

    private BackgroundTask(String name, Duration period, Runnable task, SerialScheduler scheduler) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException(name + ": the period must be positive, was " + period);
        }
        this.name = name;
        this.period = period;
        this.task = task;
        this.scheduler = scheduler;
    }

    /** {@code task} every {@code period} on a daemon thread named {@code threadName}, once started. */
    public static BackgroundTask every(String threadName, Duration period, Runnable task) {
        return every(threadName, period, task, SerialScheduler.daemonThread(threadName));
    }

    /** {@code task} every {@code period} on {@code scheduler} (which it closes), once started. */
    public static BackgroundTask every(String name, Duration period, Runnable task, SerialScheduler scheduler) {
        return new BackgroundTask(name, period, task, scheduler);
    }

    /** The first run one period from now. Call once. */
    public void start() {
        scheduler.schedule(this::runAndScheduleNext, period);
    }

    private void runAndScheduleNext() {
        try {
            task.run();
        } catch (RuntimeException e) {
            log.warn("{} failed; it runs again in {} ms", name, period.toMillis(), e);
        }
        scheduler.schedule(this::runAndScheduleNext, period);
    }

    @Override
    public void close() {
        scheduler.close();
    }
}
