package dev.tollgate.core;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Background threads that never keep the JVM alive on their own. */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** A single daemon thread named {@code name}, for periodic background work. */
    public static ScheduledExecutorService scheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }
}
