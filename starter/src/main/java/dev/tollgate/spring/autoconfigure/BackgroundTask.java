package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A periodic job on a daemon thread of its own, stopped with the application. A bean of this type
 * rather than a {@code ScheduledExecutorService}: an application's scheduling would otherwise find
 * an executor bean of Tollgate's and might use it for its own tasks.
 */
final class BackgroundTask implements AutoCloseable {

    private final ScheduledExecutorService executor;

    private BackgroundTask(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /** Runs {@code task} every {@code period}, the first time one period from now. */
    static BackgroundTask every(String threadName, Duration period, Runnable task) {
        ScheduledExecutorService executor = DaemonThreads.scheduler(threadName);
        long millis = period.toMillis();
        executor.scheduleWithFixedDelay(task, millis, millis, TimeUnit.MILLISECONDS);
        return new BackgroundTask(executor);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
