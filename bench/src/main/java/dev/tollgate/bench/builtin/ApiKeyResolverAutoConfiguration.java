package dev.tollgate.bench.builtin;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * The one piece Spring Cloud Gateway's built-in {@code RequestRateLimiter} needs that the Tollgate
 * application lacks: a {@link KeyResolver} keyed on the {@code X-Api-Key} header, the tenant, as
 * Tollgate's limiter is. This class does not run in the benchmark's JVM: {@code BuiltInLimiterPlugin}
 * copies it into a directory put on the gateway's {@code loader.path}, so the built-in baseline is
 * the very same gateway jar with this bean added.
 *
 * <p>Registered before the gateway's auto-configuration, whose rate-limiter filter factory is only
 * created when a KeyResolver bean exists.
 */
@AutoConfiguration(before = GatewayAutoConfiguration.class)
public class ApiKeyResolverAutoConfiguration {

    public static final String BEAN_NAME = "apiKeyResolver";

    @Bean(BEAN_NAME)
    KeyResolver apiKeyResolver() {
        // An empty key makes the filter answer 403 (deny-empty-key), like Tollgate's 401 for no key.
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
    }
}
