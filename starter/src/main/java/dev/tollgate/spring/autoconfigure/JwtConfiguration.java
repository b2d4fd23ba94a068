package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.identity.BearerTenants;
import dev.tollgate.spring.identity.JwtBearerTenants;
import dev.tollgate.spring.settings.JwtProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tenants from bearer tokens, where {@code tollgate.jwt.issuer-uri} or {@code tollgate.jwt.jwk-set-uri}
 * is set and Spring Security's resource-server and JOSE modules are on the class path (without them,
 * the rate-limit filter's bean refuses to start, naming the setting).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder")
@ConditionalOnExpression("!'${tollgate.jwt.issuer-uri:}'.isBlank() or !'${tollgate.jwt.jwk-set-uri:}'.isBlank()")
class JwtConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BearerTenants bearerTenants(JwtProperties jwt) {
        return new JwtBearerTenants(JwtBearerTenants.decoder(jwt.issuerUri(), jwt.jwkSetUri()), jwt.tenantClaim());
    }
}
