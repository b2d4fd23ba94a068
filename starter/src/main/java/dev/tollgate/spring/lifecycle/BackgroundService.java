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
 *
 * <p>Most components release what they hold for good when they stop (their scheduler's thread, their
 * connections), so a start after a stop ({@code ConfigurableApplicationContext.stop()} then
 * {@code start()}) is refused with an {@link IllegalStateException} naming the component, rather
 * than leave it silently dead; a component made to start again is wrapped with
 * {@link #restartable}.
 */
public final class BackgroundService implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(BackgroundService.class);

    private final String name;
    private final LifecyclePhase phase;
    private final Runnable onStart;
    private final AutoCloseable onStop;
    private final boolean restartable;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean stoppedOnce;

    private BackgroundService(String name, LifecyclePhase phase, Runnable onStart, AutoCloseable onStop,
                              boolean restartable) {
        this.name = name;
        this.phase = phase;
        this.onStart = onStart;
        this.onStop = onStop;
        this.restartable = restartable;
    }

    /**
     * A component started with {@code onStart} and stopped for good with {@code onStop}, in
     * {@code phase}.
     */
    public static BackgroundService of(String name, LifecyclePhase phase, Runnable onStart, AutoCloseable onStop) {
        return new BackgroundService(name, phase, onStart, onStop, false);
    }

    /** A component that {@code onStart} can start again after {@code onStop} stopped it. */
    public static BackgroundService restartable(String name, LifecyclePhase phase, Runnable onStart,
                                                AutoCloseable onStop) {
        return new BackgroundService(name, phase, onStart, onStop, true);
    }

    /** A component with nothing to start, stopped with {@code onStop} in {@code phase}. */
    public static BackgroundService stopping(String name, LifecyclePhase phase, AutoCloseable onStop) {
        return new BackgroundService(name, phase, () -> { }, onStop, true);
    }

    @Override
    public void start() {
        if (stoppedOnce && !restartable) {
            throw new IllegalStateException(name + " cannot start again once stopped (what it held is released);"
                    + " restart the application instead");
        }
        if (running.compareAndSet(false, true)) {
            onStart.run();
        }
    }

    @Override
    public void stop() {
        if (running.compareAndSet(true, false)) {
            stoppedOnce = true;
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
