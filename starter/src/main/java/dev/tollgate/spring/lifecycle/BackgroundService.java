package dev.tollgate.spring.lifecycle;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * One background component's place in the application's lifecycle: {@link #start()} runs its start
 * action once (start-up waits belong there, never in a {@code @Bean} method), {@link #stop()} its
 * stop action once, in the order of their {@link LifecyclePhase}. The component itself stays free of
 * Spring (the Redis module's components cannot know it); the wiring wraps it in one of these.
 */
public final class BackgroundService implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(BackgroundService.class);

    private final String name;
    private final LifecyclePhase phase;
    private final Runnable onStart;
    private final AutoCloseable onStop;
    private final AtomicBoolean running = new AtomicBoolean();

    private BackgroundService(String name, LifecyclePhase phase, Runnable onStart, AutoCloseable onStop) {
        this.name = name;
        this.phase = phase;
        this.onStart = onStart;
        this.onStop = onStop;
    }

    /** A component started with {@code onStart} and stopped with {@code onStop}, in {@code phase}. */
    public static BackgroundService of(String name, LifecyclePhase phase, Runnable onStart, AutoCloseable onStop) {
        return new BackgroundService(name, phase, onStart, onStop);
    }

    /** A component with nothing to start, stopped with {@code onStop} in {@code phase}. */
    public static BackgroundService stopping(String name, LifecyclePhase phase, AutoCloseable onStop) {
        return new BackgroundService(name, phase, () -> { }, onStop);
    }

    @Override
    public void start() {
        if (running.compareAndSet(false, true)) {
            onStart.run();
        }
    }

    @Override
    public void stop() {
        if (running.compareAndSet(true, false)) {
            try {
                onStop.close();
            } catch (Exception e) {
                // Shutdown goes on: the next components still have to stop.
                log.warn("Stopping {} failed: {}", name, e.toString());
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running.get();
    }

    @Override
    public int getPhase() {
        return phase.value();
    }

    /** The component's name, as logs and tests see it. */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "BackgroundService[" + name + ", " + phase + "]";
    }
}
