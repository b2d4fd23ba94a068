package dev.tollgate.gateway.config;

import dev.tollgate.core.BucketStore;
import dev.tollgate.core.RuleBook;
import dev.tollgate.gateway.filter.RateLimitFilter;
import dev.tollgate.gateway.tenant.KeyNamesTenantResolver;
import dev.tollgate.gateway.tenant.TenantResolver;
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

    @Bean
    RateLimitFilter rateLimitFilter(TollgateProperties properties, TenantResolver tenants, RuleBook rules,
                                    BucketStore store) {
        return new RateLimitFilter(properties.apiKeyHeader(), tenants, rules, store);
    }
}
