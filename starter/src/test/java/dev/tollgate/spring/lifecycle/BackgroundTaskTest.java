package dev.tollgate.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.core.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A periodic job: when it runs, that a run which throws does not end it, and that close does. */
class BackgroundTaskTest {

    private static final Duration PERIOD = Duration.ofSeconds(30);

    @Test
    void nothingRunsBeforeStart_thenOnceEveryPeriod() {
        ManualScheduler scheduler = new ManualScheduler();
        AtomicInteger runs = new AtomicInteger();
        BackgroundTask task = BackgroundTask.every("test-task", PERIOD, runs::incrementAndGet, scheduler);

        scheduler.advance(PERIOD.multipliedBy(3));
        assertThat(runs).as("not started").hasValue(0);
        assertThat(scheduler.pendingDelays()).isEmpty();

        task.start();
        scheduler.advance(PERIOD.minusMillis(1));
        assertThat(runs).as("the first run one period after the start").hasValue(0);
        scheduler.advance(Duration.ofMillis(1));
        assertThat(runs).hasValue(1);
        scheduler.advance(PERIOD.multipliedBy(2));
        assertThat(runs).hasValue(3);
        assertThat(scheduler.pendingDelays()).containsExactly(PERIOD);
    }

    @Test
    void aRunThatThrowsDoesNotEndTheJob() {
        ManualScheduler scheduler = new ManualScheduler();
        AtomicInteger runs = new AtomicInteger();
        BackgroundTask task = BackgroundTask.every("test-task", PERIOD, () -> {
            if (runs.incrementAndGet() <= 2) {
                throw new IllegalStateException("Redis gone");
            }
        }, scheduler);

        task.start();
        scheduler.advance(PERIOD.multipliedBy(2));
        assertThat(runs).as("both runs threw").hasValue(2);
        assertThat(scheduler.pendingDelays()).as("the next run is still scheduled").containsExactly(PERIOD);
        scheduler.advance(PERIOD.multipliedBy(2));
        assertThat(runs).hasValue(4);
    }

    @Test
    void closeEndsTheJob() {
        ManualScheduler scheduler = new ManualScheduler();
        AtomicInteger runs = new AtomicInteger();
        BackgroundTask task = BackgroundTask.every("test-task", PERIOD, runs::incrementAndGet, scheduler);
        task.start();
        scheduler.advance(PERIOD);
        task.close();
        scheduler.advance(PERIOD.multipliedBy(5));
        assertThat(runs).hasValue(1);
        assertThat(scheduler.pendingDelays()).isEmpty();
    }
}
