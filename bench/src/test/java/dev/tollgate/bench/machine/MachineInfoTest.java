package dev.tollgate.bench.machine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MachineInfoTest {

    @Test
    void describesThisMachine() {
        MachineInfo m = MachineInfo.collect("7.0.15");

        assertThat(m.cpus()).isGreaterThanOrEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(m.cpuModel()).isNotBlank();
        assertThat(m.memory()).matches("\\d+\\.\\d GiB");
        assertThat(m.os()).contains(", kernel " + System.getProperty("os.version"));
        assertThat(m.redis()).isEqualTo("redis-server 7.0.15");
        assertThat(m.loadAverageAtStart()).matches("\\d+\\.\\d\\d / \\d+\\.\\d\\d / \\d+\\.\\d\\d");
    }
}
