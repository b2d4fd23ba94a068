package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisKeysTest {

    @Test
    void plainIdsAreKeptAsWritten() {
        assertThat(RedisKeys.bucket("shop-a", "create-order")).isEqualTo("rl:{shop-a}:create-order");
    }

    @Test
    void separatorsAndBracesAreEscaped() {
        assertThat(RedisKeys.bucket("a}:b", "c")).isEqualTo("rl:{a%7D%3Ab}:c");
        assertThat(RedisKeys.bucket("a", "b}:c")).isEqualTo("rl:{a}:b%7D%3Ac");
        assertThat(RedisKeys.bucket("{x", "%")).isEqualTo("rl:{%7Bx}:%25");
    }

    @Test
    void spacesUnicodeAndLoneSurrogatesAreEscaped() {
        assertThat(RedisKeys.escape("a b")).isEqualTo("a%20b");
        assertThat(RedisKeys.escape("é")).isEqualTo("%C3%A9");
        assertThat(RedisKeys.escape("😀")).isEqualTo("%F0%9F%98%80");
        assertThat(RedisKeys.escape("\uD800")).isEqualTo("%uD800");
    }

    @Test
    void anEmptyTenantIsRefused() {
        assertThatThrownBy(() -> RedisKeys.bucket("", "r")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketKey("", "r")).isInstanceOf(IllegalArgumentException.class);
    }
}
