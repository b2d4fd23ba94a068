package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualSchedulerTest {

    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<String> ran = new ArrayList<>();

    @Test
    void tasksRunWhenTheClockReachesTheirDueTimeInOrderWithTheClockSetToIt() {
        scheduler.schedule(() -> ran.add("b@" + scheduler.clock().millis()), Duration.ofSeconds(2));
        scheduler.schedule(() -> ran.add("a@" + scheduler.clock().millis()), Duration.ofSeconds(1));
        scheduler.execute(() -> ran.add("now@" + scheduler.clock().millis()));
        assertThat(ran).isEmpty();

        scheduler.runDue();
        assertThat(ran).containsExactly("now@0");
        scheduler.advance(Duration.ofMillis(1999));
        assertThat(ran).containsExactly("now@0", "a@1000");
        scheduler.advance(Duration.ofMillis(1));
        assertThat(ran).containsExactly("now@0", "a@1000", "b@2000");
        assertThat(scheduler.clock().millis()).isEqualTo(2000);
    }

    @Test
    void aTaskThatReschedulesItselfRunsOncePerPeriod() {
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            ran.add("tick@" + scheduler.clock().millis());
            scheduler.schedule(tick[0], Duration.ofSeconds(30));
        };
        scheduler.schedule(tick[0], Duration.ofSeconds(30));
        scheduler.advance(Duration.ofSeconds(95));
        assertThat(ran).containsExactly("tick@30000", "tick@60000", "tick@90000");
        assertThat(scheduler.pendingDelays()).containsExactly(Duration.ofSeconds(25));
    }
}
