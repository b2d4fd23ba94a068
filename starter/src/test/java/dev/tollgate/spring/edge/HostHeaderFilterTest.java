package dev.tollgate.spring.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostHeaderFilterTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"", "example.org", "example.org:8080", "127.0.0.1", "127.0.0.1:80", "[::1]",
            "[::1]:8080", "[2001:db8::7]", "xn--caf-dma.example", "a_b-c~d", "host:"})
    void valid(String host) {
        assertThat(HostHeaderFilter.isValid(host)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"a b", "a/b", "a\\b", "[::1", "[::1]x", "[::1]:a", "a:b:c", "a:80x", "a@b", "a?b",
            "a#b", "caf\u00e9", "a\tb", "[::1]]"})
    void invalid(String host) {
        assertThat(HostHeaderFilter.isValid(host)).isFalse();
    }

    @Test
    void oneValidHostPassesAndAnythingElseIsRefusedWithItsReason() {
        assertThat(HostHeaderFilter.refusal(List.of("example.org").iterator(), true)).isNull();
        assertThat(HostHeaderFilter.refusal(List.<String>of().iterator(), false)).as("HTTP/1.0").isNull();
        assertThat(HostHeaderFilter.refusal(List.<String>of().iterator(), true)).contains("needs a Host header");
        assertThat(HostHeaderFilter.refusal(List.of("a", "a", "b").iterator(), true)).endsWith("not 3.");
        assertThat(HostHeaderFilter.refusal(List.of("a:b:c").iterator(), true)).isEqualTo(HostHeaderFilter.NOT_A_HOST);
    }
}
