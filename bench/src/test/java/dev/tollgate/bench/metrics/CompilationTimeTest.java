package dev.tollgate.bench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CompilationTimeTest {

    @Test
    void readsTheJitsTotalCompilationTime() {
        String exposition = """
                # TYPE jvm_compilation_time_ms_total counter
                jvm_compilation_time_ms_total{compiler="HotSpot 64-Bit Tiered Compilers"} 151120.0
                jvm_classes_loaded_classes 13704.0
                """;
        assertThat(CompilationTime.parse(exposition)).isEqualTo(OptionalLong.of(151_120));
        assertThat(CompilationTime.parse("jvm_classes_loaded_classes 1.0\n")).isEmpty();
    }
}
