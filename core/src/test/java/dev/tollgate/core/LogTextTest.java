package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void plainTextIsLeftAsItIs() {
        assertThat(LogText.escape("shop-a /orders?x=1 café", 100)).isEqualTo("shop-a /orders?x=1 café");
    }

    @Test
    void controlCharactersCannotBreakALine() {
        assertThat(LogText.escape("a\r\nINFO forged\tb\u0000\u007f\u0085\u2028", 100))
                .isEqualTo("a\\x0d\\x0aINFO forged\\x09b\\x00\\x7f\\x85\\u2028")
                .doesNotContain("\n", "\r");
    }

    @Test
    void aBackslashIsEscapedSoEscapesAreUnambiguous() {
        assertThat(LogText.escape("\\x0a", 100)).isEqualTo("\\\\x0a");
    }

    @Test
    void longTextIsCutSayingHowMuch() {
        assertThat(LogText.escape("abcdef", 4)).isEqualTo("abcd... (2 more characters)");
        assertThat(LogText.escape(null, 4)).isNull();
    }
}
