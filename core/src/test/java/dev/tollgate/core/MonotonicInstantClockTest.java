package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MonotonicInstantClockTest {

    @Test
    void instantsCountTheTimeSinceTheClockWasMadeFromTheEpoch() {
        ManualClock time = new ManualClock(-5_000_000_000L); // System.nanoTime may be negative
        MonotonicInstantClock clock = new MonotonicInstantClock(time);
        assertThat(clock.instant()).isEqualTo(Instant.EPOCH);
        time.advance(Duration.ofMillis(1_500).plusNanos(7));
        assertThat(clock.instant()).isEqualTo(Instant.EPOCH.plusMillis(1_500).plusNanos(7));
        assertThat(clock.millis()).isEqualTo(1_500);
        assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
    }

    @Test
    void anotherZoneKeepsTheOriginAndTheInstants() {
        ManualClock time = new ManualClock();
        MonotonicInstantClock clock = new MonotonicInstantClock(time);
        time.advanceMillis(250);
        java.time.Clock berlin = clock.withZone(ZoneId.of("Europe/Berlin"));
        assertThat(berlin.getZone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(berlin.instant()).isEqualTo(clock.instant()).isEqualTo(Instant.EPOCH.plusMillis(250));
    }
}
