package dev.tollgate.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CredentialsTest {

    @Test
    void eachIdentityIsOneHeaderAndNoKeyUnlessItIsTheKey() {
        assertThat(headers(Credentials.apiKey(), "tenant-7").get("X-Api-Key")).isEqualTo("tenant-7");
        HttpHeaders forwarded = headers(Credentials.forwardedFor(), "tenant-7");
        assertThat(forwarded.get("X-Forwarded-For")).isEqualTo(Credentials.addressOf("tenant-7"));
        assertThat(forwarded.contains("X-Api-Key")).isFalse();
        HttpHeaders bearer = headers(Credentials.bearer(caller -> "token-of-" + caller), "tenant-7");
        assertThat(bearer.get("Authorization")).isEqualTo("Bearer token-of-tenant-7");
        assertThat(bearer.contains("X-Api-Key")).isFalse();
        assertThat(headers(Credentials.none(), "tenant-7").isEmpty()).isTrue();
    }

    @Test
    void aCallersTokenIsMadeOnceHoweverOftenItIsSent() {
        AtomicInteger signed = new AtomicInteger();
        Credentials bearer = Credentials.bearer(caller -> caller + "-" + signed.incrementAndGet());
        for (int i = 0; i < 5; i++) {
            assertThat(headers(bearer, "a").get("Authorization")).isEqualTo("Bearer a-1");
        }
        assertThat(headers(bearer, "b").get("Authorization")).isEqualTo("Bearer b-2");
        assertThat(signed).hasValue(2);
    }

    @Test
    void manyCallerNamesAreAlmostAsManyAddressesInTenSlashEight() {
        Set<String> addresses = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String address = Credentials.addressOf("tenant-" + i);
            assertThat(address).matches("10\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
            assertThat(address).isEqualTo(Credentials.addressOf("tenant-" + i));
            addresses.add(address);
        }
        // 1,000 names in 2^24 addresses: a shared address is possible (about 3 %), several are not.
        assertThat(addresses.size()).isGreaterThanOrEqualTo(998);
    }

    private static HttpHeaders headers(Credentials credentials, String caller) {
        HttpHeaders headers = new DefaultHttpHeaders();
        credentials.apply(caller, headers);
        return headers;
    }
}
