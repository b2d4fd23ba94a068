package dev.tollgate.spring.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Date;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every way a bearer token is accepted or refused, against a JWK set served on 127.0.0.1. */
class JwtBearerTenantsTest {

    private static TokenIssuer issuer;
    private static JwtBearerTenants tenants;

    @BeforeAll
    static void start() {
        issuer = new TokenIssuer();
        tenants = new JwtBearerTenants(JwtBearerTenants.decoder(TokenIssuer.ISSUER, issuer.jwkSetUri()), "tenant");
    }

    @AfterAll
    static void stop() {
        issuer.close();
    }

    private static BearerTenants.Result of(String token) {
        return tenants.tenantOf(token).block();
    }

    @Test
    void rs256AndEs256TokensNameTheirTenant() {
        assertThat(of(issuer.rs256(TokenIssuer.claims(Map.of("tenant", "shop-a")).build())))
                .isEqualTo(new BearerTenants.Tenant("shop-a"));
        assertThat(of(issuer.es256(TokenIssuer.claims(Map.of("tenant", "shop-b")).build())))
                .isEqualTo(new BearerTenants.Tenant("shop-b"));
    }

    @Test
    void anExpiredTokenIsRefused() {
        var claims = TokenIssuer.claims(Map.of("tenant", "shop-a"))
                .issueTime(Date.from(Instant.now().minusSeconds(3_600)))
                .expirationTime(Date.from(Instant.now().minusSeconds(600))).build();
        assertThat(of(issuer.rs256(claims))).isInstanceOf(BearerTenants.Refused.class);
    }

    @Test
    void aBadlySignedTokenIsRefused() {
        assertThat(of(issuer.forged(TokenIssuer.claims(Map.of("tenant", "shop-a")).build())))
                .isInstanceOf(BearerTenants.Refused.class);
        String good = issuer.rs256(TokenIssuer.claims(Map.of("tenant", "shop-a")).build());
        String otherPayload = issuer.rs256(TokenIssuer.claims(Map.of("tenant", "shop-z")).build()).split("\\.")[1];
        String[] parts = good.split("\\.");
        assertThat(of(parts[0] + "." + otherPayload + "." + parts[2])).as("payload swapped")
                .isInstanceOf(BearerTenants.Refused.class);
        assertThat(of(TokenIssuer.hs256(TokenIssuer.claims(Map.of("tenant", "shop-a")).build())))
                .as("an algorithm not accepted").isInstanceOf(BearerTenants.Refused.class);
        assertThat(of("not-a-jwt")).isInstanceOf(BearerTenants.Refused.class);
    }

    @Test
    void aTokenOfAnotherIssuerIsRefused() {
        var claims = TokenIssuer.claims(Map.of("tenant", "shop-a")).issuer("https://elsewhere.test").build();
        assertThat(of(issuer.rs256(claims))).isInstanceOf(BearerTenants.Refused.class);
    }

    @Test
    void aTokenWithoutATenantIdInTheClaimIsRefused() {
        assertThat(of(issuer.rs256(TokenIssuer.claims(Map.of()).build())))
                .isEqualTo(new BearerTenants.Refused("The bearer token has no tenant claim."));
        assertThat(of(issuer.rs256(TokenIssuer.claims(Map.of("tenant", 42)).build())))
                .isEqualTo(new BearerTenants.Refused("The bearer token has no tenant claim."));
        assertThat(of(issuer.rs256(TokenIssuer.claims(Map.of("tenant", "anon:198.51.100.7/32")).build())))
                .as("no anonymous caller's bucket")
                .isEqualTo(new BearerTenants.Refused("The bearer token's tenant claim is not a tenant id."));
    }
}
