package com.example.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * A team's own Spring Cloud Gateway, which limits its {@code orders} route with Tollgate through
 * Spring Cloud Gateway's {@code RequestRateLimiter} filter (see {@code application.yml}). Nothing
 * Tollgate-specific is written here: the starter's auto-configuration provides
 * {@code #{@tollgateRateLimiter}}; this application only says who the caller is.
 */
@SpringBootApplication
public class ExistingGatewayApplication {

    /** The caller is the customer its (already authenticated) client names in {@code X-Customer}. */
    @Bean
    KeyResolver customerKeyResolver() {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Customer"));
    }

    public static void main(String[] args) {
        SpringApplication.run(ExistingGatewayApplication.class, args);
    }
}
