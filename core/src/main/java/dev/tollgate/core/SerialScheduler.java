package dev.tollgate.core;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs one component's background tasks one at a time, each as soon as possible or after a delay
 * measured on {@link #clock()}. Production code uses {@link #daemonThread(String)}; tests use
 * {@code ManualScheduler} (core's test-jar), which runs the tasks that fall due when the test moves
 * its {@code ManualClock}, so that a 30 s period is tested without waiting 30 s.
 *
 * <p>{@link #daemonThread(String)} is the one place Tollgate makes a thread of its own: every
 * background component gets its thread through it (the architecture tests check that no other class
 * constructs a {@link Thread}).
 */
public interface SerialScheduler extends AutoCloseable {

    /** Runs {@code task} as soon as the tasks before it are done. */
    void execute(Runnable task);

    /** Runs {@code task} once, {@code delay} from now on {@link #clock()}. */
    void schedule(Runnable task, Duration delay);

    /** The clock the delays are measured on. */
    MonotonicClock clock();

    /**
     * Drops the tasks not run yet and interrupts the one running, if any. A task handed over after
     * this is dropped too: a component may still be signalled while it closes (a last notification),
     * and that is no error.
     */
    @Override
    void close();

    /**
     * A daemon thread named {@code name} (it never keeps the JVM alive on its own), on the JVM's
     * monotonic clock. The thread is made when the first task is handed over, not before.
     */
    static SerialScheduler daemonThread(String name) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        return new SerialScheduler() {
            @Override
            public void execute(Runnable task) {
                try {
                    executor.execute(task);
                } catch (RejectedExecutionException closed) {
                    // The queue is unbounded: only a closed scheduler refuses, and then tasks are dropped.
                }
            }

            @Override
            public void schedule(Runnable task, Duration delay) {
                try {
                    executor.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closed) {
                    // As in execute().
                }
            }

            @Override
            public MonotonicClock clock() {
                // The executor's delays are on System.nanoTime() too.
                return MonotonicClock.system();
            }

            @Override
            public void close() {
                executor.shutdownNow();
            }
        };
    }
}
