package dev.tollgate.spring.admin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BearerCredentialsTest {

    private final BearerCredentials credentials = new BearerCredentials("s3cret-token-0123");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Bearer s3cret-token-0123", "bearer s3cret-token-0123", "BEARER s3cret-token-0123",
            "bEaReR s3cret-token-0123", "Bearer    s3cret-token-0123"})
    void theSchemeIsMatchedWithoutRegardToCase(String header) {
        assertThat(credentials.matches(header)).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"", "Bearer", "Bearer ", "Bearers3cret-token-0123", "Basic s3cret-token-0123",
            "Bearer S3CRET-TOKEN-0123", "Bearer s3cret-token-012", "Bearer s3cret-token-01234",
            " Bearer s3cret-token-0123", "Bearer\ts3cret-token-0123", "Token Bearer s3cret-token-0123"})
    void anythingElseIsRefused(String header) {
        assertThat(credentials.matches(header)).isFalse();
    }

    @org.junit.jupiter.api.Test
    void noHeaderIsRefused() {
        assertThat(credentials.matches(null)).isFalse();
    }
}
