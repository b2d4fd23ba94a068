package dev.tollgate.spring.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class EchoTest {

    @Test
    void shortInputIsQuotedWholeAndLongInputCut() {
        assertThat(Echo.of("shop-a")).isEqualTo("shop-a");
        assertThat(Echo.of("x".repeat(1_000_000))).hasSize(Echo.MAX).endsWith("...");
    }

    @Test
    void numbersArePlainWhenThatIsShortAndNeverExpanded() {
        assertThat(Echo.of(new BigDecimal("0.0005"))).isEqualTo("0.0005");
        assertThat(Echo.of(new BigDecimal("1e-500000000"))).isEqualTo("1E-500000000");
        assertThat(Echo.of(new BigDecimal("1e+500000000"))).isEqualTo("1E+500000000");
        assertThat(Echo.of(new BigDecimal("1".repeat(1000)))).hasSize(Echo.MAX);
    }
}
