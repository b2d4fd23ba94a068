package dev.tollgate.spring.directory;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdsTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shop-a", "a", "...", ".a", "a..", "x.y_z~w-1", "A"})
    void valid(String id) {
        assertThat(Ids.isValidTenant(id)).isTrue();
        assertThat(Ids.isValidRoute(id)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"", ".", "..", "a b", "a/b", "a%2e", "?unverified", "a;b"})
    void invalid(String id) {
        assertThat(Ids.isValidTenant(id)).isFalse();
        assertThat(Ids.isValidRoute(id)).isFalse();
    }
}
