package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.RuleBook;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.spring.health.RulesReadinessIndicator;
import dev.tollgate.spring.settings.TollgateProperties;
import dev.tollgate.spring.tenant.KeyNamesTenantResolver;
import dev.tollgate.spring.tenant.TenantResolver;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * {@code tollgate.source=static}: rules from {@code tollgate.rules}, plans from {@code tollgate.plans} and
 * {@code tollgate.tenant-plans}, and the API key names the
 * tenant, as in the README's demo. No database. For trials and benchmarks: anyone who knows a tenant's
 * name can spend its quota.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(TollgateSwitches.RulesFromConfiguration.class)
class StaticDirectoryConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RuleBook ruleBook(TollgateProperties properties) {
        LoggerFactory.getLogger(StaticDirectoryConfiguration.class).warn(
                "tollgate.source=static: {} rules and {} plans from configuration, and API keys are taken as tenant names."
                        + " Use tollgate.source=database in production.", properties.rules().size(), properties.plans().size());
        return properties.ruleSet();
    }

    /** The rules, plans and tenants' plans of configuration, for the limiter's multi-limit path. */
    @Bean
    @ConditionalOnMissingBean
    LimitBook limitBook(TollgateProperties properties) {
        return properties.planBook();
    }

    @Bean
    RulesReadinessIndicator rulesHealthIndicator() {
        return RulesReadinessIndicator.alwaysLoaded();
    }

    @Bean
    @ConditionalOnMissingBean
    TenantResolver tenantResolver() {
        return new KeyNamesTenantResolver();
    }
}
