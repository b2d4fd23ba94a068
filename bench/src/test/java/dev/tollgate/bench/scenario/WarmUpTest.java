package dev.tollgate.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class WarmUpTest {

    @Test
    void aGatewayStillGettingFasterIsNotWarm() {
        // A JIT at work: every slice a little faster than the one before.
        assertThat(WarmUp.levelledOff(List.of(1000.0, 1400.0, 1800.0, 2300.0, 2900.0, 3500.0))).isFalse();
    }

    @Test
    void aThroughputThatStoppedRisingIsWarmEvenIfItWobbles() {
        assertThat(WarmUp.levelledOff(List.of(2000.0, 4000.0, 5000.0, 5200.0, 4800.0, 5300.0, 5100.0, 4900.0,
                5250.0))).isTrue();
    }

    @Test
    void aLevelThroughputWhileTheCompilerStillWorksIsNotWarm() {
        List<Double> level = List.of(1900.0, 1950.0, 1900.0, 1920.0, 1910.0, 1930.0);
        assertThat(WarmUp.settled(level, List.of(0.9, 0.8, 0.7, 0.6, 0.5, 0.4))).isFalse();
        assertThat(WarmUp.settled(level, List.of(0.9, 0.8, 0.7, 0.2, 0.04, 0.01))).isFalse();
        assertThat(WarmUp.settled(level, List.of(0.9, 0.8, 0.2, 0.04, 0.01, 0.02))).isTrue();
        // Not a gateway (no compiler figures): the throughput alone decides.
        assertThat(WarmUp.settled(level, List.of())).isTrue();
    }

    @Test
    void tooFewSlicesToTell() {
        assertThat(WarmUp.levelledOff(List.of(5000.0, 5000.0, 5000.0, 5000.0, 5000.0))).isFalse();
    }
}
