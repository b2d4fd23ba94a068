package dev.tollgate.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MedianTest {

    @Test
    void oddAndEvenCountsAndNaNsLeftOut() {
        assertThat(Median.of(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(Median.of(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(Median.of(List.of(Double.NaN, 5.0))).isEqualTo(5.0);
        assertThat(Median.of(List.of())).isNaN();
    }
}
