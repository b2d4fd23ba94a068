package dev.tollgate.spring.settings;

import java.net.URI;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Tenants from verified bearer tokens ({@code tollgate.jwt.*}): on when an issuer URI or a JWK set URI
 * is set (and Spring Security's {@code spring-security-oauth2-resource-server} and
 * {@code spring-security-oauth2-jose} are on the class path).
 *
 * @param issuerUri   The issuer every token must name (its iss claim); its keys are found through the issuer's
 *                    OpenID discovery document unless jwk-set-uri is set.
 * @param jwkSetUri   Where the issuer's public keys (a JWK set) are fetched from.
 * @param tenantClaim The claim of a verified token that names the tenant.
 */
@ConfigurationProperties("tollgate.jwt")
public record JwtProperties(String issuerUri, String jwkSetUri, @DefaultValue("tenant") String tenantClaim) {

    public JwtProperties {
        issuerUri = blankToNull(issuerUri);
        jwkSetUri = blankToNull(jwkSetUri);
        checkUri("tollgate.jwt.issuer-uri", issuerUri);
        checkUri("tollgate.jwt.jwk-set-uri", jwkSetUri);
        if (tenantClaim == null || tenantClaim.isBlank()) {
            throw new InvalidSettingException("tollgate.jwt.tenant-claim", tenantClaim,
                    "tollgate.jwt.tenant-claim must not be blank");
        }
    }

    /** Whether bearer tokens are read at all. */
    public boolean enabled() {
        return issuerUri != null || jwkSetUri != null;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static void checkUri(String setting, String value) {
        if (value == null) {
            return;
        }
        URI uri;
        try {
            uri = URI.create(value);
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        if (uri == null || uri.getHost() == null
                || !("https".equalsIgnoreCase(uri.getScheme()) || "http".equalsIgnoreCase(uri.getScheme()))) {
            throw new InvalidSettingException(setting, value, setting + " must be an http(s) URL, was '" + value + "'");
        }
    }
}
