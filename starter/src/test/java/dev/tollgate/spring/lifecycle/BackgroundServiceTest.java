package dev.tollgate.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Start and stop run once each; a start after a stop is refused unless the component can restart. */
class BackgroundServiceTest {

    private final List<String> calls = new ArrayList<>();

    @Test
    void startAndStopRunOnceEachInTheirPhase() {
        BackgroundService service = BackgroundService.of("job", LifecyclePhase.WORK, () -> calls.add("start"),
                () -> calls.add("stop"));
        assertThat(service.getPhase()).isEqualTo(LifecyclePhase.WORK.value());
        service.start();
        service.start();
        assertThat(service.isRunning()).isTrue();
        service.stop();
        service.stop();
        assertThat(service.isRunning()).isFalse();
        assertThat(calls).containsExactly("start", "stop");
    }

    @Test
    void aComponentStoppedForGoodRefusesToStartAgainByName() {
        BackgroundService service = BackgroundService.of("redisConnection", LifecyclePhase.CONNECTIONS,
                () -> calls.add("start"), () -> calls.add("stop"));
        service.start();
        service.stop();
        assertThatThrownBy(service::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("redisConnection").hasMessageContaining("restart the application");
        assertThat(service.isRunning()).isFalse();
        assertThat(calls).containsExactly("start", "stop");
    }

    @Test
    void aRestartableComponentStartsAgain() {
        BackgroundService service = BackgroundService.restartable("notification listener", LifecyclePhase.CONNECTIONS,
                () -> calls.add("start"), () -> calls.add("stop"));
        service.start();
        service.stop();
        service.start();
        assertThat(service.isRunning()).isTrue();
        assertThat(calls).containsExactly("start", "stop", "start");
    }

    @Test
    void aFailedStopIsLoggedAndTheNextComponentsStillStop() {
        BackgroundService failing = BackgroundService.of("failing", LifecyclePhase.WORK, () -> { }, () -> {
            throw new IllegalStateException("boom");
        });
        failing.start();
        failing.stop();
        assertThat(failing.isRunning()).isFalse();
    }
}
