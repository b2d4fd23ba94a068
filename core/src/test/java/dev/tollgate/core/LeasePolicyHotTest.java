package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link LeasePolicy#isHot}: the hysteresis both leasing paths share. A key becomes hot at the
 * threshold and stays hot down to half of it, so a rate hovering around the threshold does not flap.
 */
class LeasePolicyHotTest {

    private static final LeasePolicy AT_100 = new LeasePolicy(100, 100, 50, 0.1, 1_000);

    @Test
    void aColdKeyBecomesHotAtTheThreshold() {
        assertThat(AT_100.isHot(false, 99.9)).isFalse();
        assertThat(AT_100.isHot(false, 100)).isTrue();
    }

    @Test
    void aHotKeyStaysHotDownToHalfTheThreshold() {
        assertThat(AT_100.isHot(true, 99.9)).isTrue();
        assertThat(AT_100.isHot(true, 50)).isTrue();
        assertThat(AT_100.isHot(true, 49.9)).isFalse();
    }

    @Test
    void aThresholdOfZeroLeasesEveryKey() {
        LeasePolicy always = new LeasePolicy(0, 100, 50, 0.1, 1_000);
        assertThat(always.isHot(false, 0)).isTrue();
        assertThat(always.isHot(true, 0)).isTrue();
    }
}
