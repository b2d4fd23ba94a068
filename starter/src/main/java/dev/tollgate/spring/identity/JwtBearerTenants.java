package dev.tollgate.spring.identity;

import dev.tollgate.spring.directory.Ids;
import java.util.List;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import reactor.core.publisher.Mono;

/**
 * Tenants from JWTs verified with Spring Security's resource-server support: signed with RS256 or
 * ES256 by a key of the issuer's JWK set (fetched and cached by Nimbus, refetched for an unknown key
 * id), within their {@code exp}/{@code nbf} (60 s of clock skew, Spring Security's default), naming
 * the configured issuer when there is one, and carrying the tenant claim. The claim's value must be a
 * tenant id the directory accepts ({@link Ids}): a token cannot make itself an anonymous caller's
 * bucket ({@code anon:...}) or put a line break in {@code X-Tenant-Id}.
 */
public final class JwtBearerTenants implements BearerTenants {

    private final ReactiveJwtDecoder decoder;
    private final String tenantClaim;

    public JwtBearerTenants(ReactiveJwtDecoder decoder, String tenantClaim) {
        this.decoder = decoder;
        this.tenantClaim = tenantClaim;
    }

    /**
     * The decoder for {@code tollgate.jwt.*}: keys from {@code jwkSetUri}, else from the issuer's
     * discovery document (fetched at the first token, not at start); the issuer checked when given.
     */
    public static ReactiveJwtDecoder decoder(String issuerUri, String jwkSetUri) {
        NimbusReactiveJwtDecoder decoder = jwkSetUri != null
                ? NimbusReactiveJwtDecoder.withJwkSetUri(jwkSetUri)
                        .jwsAlgorithms(algorithms -> algorithms.addAll(List.of(SignatureAlgorithm.RS256, SignatureAlgorithm.ES256)))
                        .build()
                : NimbusReactiveJwtDecoder.withIssuerLocation(issuerUri)
                        .jwsAlgorithms(algorithms -> algorithms.addAll(List.of(SignatureAlgorithm.RS256, SignatureAlgorithm.ES256)))
                        .build();
        OAuth2TokenValidator<Jwt> validator = issuerUri != null
                ? JwtValidators.createDefaultWithIssuer(issuerUri) : JwtValidators.createDefault();
        decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<>(validator));
        return decoder;
    }

    @Override
    public Mono<Result> tenantOf(String token) {
        return decoder.decode(token)
                .map(this::tenant)
                .onErrorResume(JwtException.class, e -> Mono.just(new Refused(reason(e))));
    }

    private Result tenant(Jwt jwt) {
        Object claim = jwt.getClaims().get(tenantClaim);
        if (!(claim instanceof String tenant) || tenant.isBlank()) {
            return new Refused("The bearer token has no " + tenantClaim + " claim.");
        }
        if (!Ids.isValidTenant(tenant)) {
            return new Refused("The bearer token's " + tenantClaim + " claim is not a tenant id.");
        }
        return new Tenant(tenant);
    }

    /** What the 401 says: whether the token was refused or its keys could not be had, nothing of its content. */
    private static String reason(JwtException e) {
        return e instanceof BadJwtException
                ? "The bearer token is not valid (signature, issuer, expiry or format)."
                : "The bearer token could not be verified.";
    }
}
