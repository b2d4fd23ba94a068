package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EventLoopCountTest {

    @Test
    void oneLoopPerCoreWhenNothingIsConfigured() {
        assertThat(EventLoopCount.chosen(null, 2)).isEqualTo("2");
        assertThat(EventLoopCount.chosen(" ", 6)).isEqualTo("6");
    }

    @Test
    void aConfiguredCountIsLeftAsItIs() {
        assertThat(EventLoopCount.chosen("8", 2)).isNull();
    }

    @Test
    void atLeastOneLoop() {
        assertThat(EventLoopCount.chosen(null, 0)).isEqualTo("1");
    }
}
