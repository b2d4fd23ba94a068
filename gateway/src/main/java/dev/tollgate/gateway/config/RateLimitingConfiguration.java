package dev.tollgate.gateway.config;

import dev.tollgate.core.BucketStore;
import dev.tollgate.core.RuleBook;
import dev.tollgate.gateway.filter.RateLimitFilter;
import dev.tollgate.gateway.tenant.KeyNamesTenantResolver;
import dev.tollgate.gateway.tenant.TenantResolver;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the rate-limit filter to its rule book, tenant resolver and bucket store. */
@Configuration(proxyBeanMethods = false)
class RateLimitingConfiguration {

    @Bean
    RuleBook ruleBook(TollgateProperties properties) {
        return properties.ruleSet();
    }

    @Bean
    TenantResolver tenantResolver() {
        return new KeyNamesTenantResolver();
    }

    /**
     * {@code tollgate.enabled=false} leaves the filter out, so the gateway forwards without limiting:
     * the benchmark's "no limiter" baseline is this very application with the switch off.
     */
    @Bean
    @ConditionalOnProperty(name = "tollgate.enabled", havingValue = "true", matchIfMissing = true)
    RateLimitFilter rateLimitFilter(TollgateProperties properties, TenantResolver tenants, RuleBook rules,
                                    BucketStore store) {
        return new RateLimitFilter(properties.apiKeyHeader(), tenants, rules, store);
    }
}
