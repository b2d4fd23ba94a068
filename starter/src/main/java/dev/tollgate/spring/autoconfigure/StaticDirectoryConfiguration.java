package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.RuleBook;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.RuleBookLimits;
import dev.tollgate.spring.settings.InvalidSettingException;
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

    /**
     * The limits of each request: the rule book's rules (this configuration's, or the application's
     * own {@link RuleBook}) with the plans and tenants' plans of configuration. An application's rule
     * book that is no {@link RuleSet} is a function the plans cannot be layered on: every request is
     * then decided by its rule alone, as before plans, and configured plans are refused.
     */
    @Bean
    @ConditionalOnMissingBean
    LimitBook limitBook(TollgateProperties properties, RuleBook rules) {
        if (rules instanceof RuleSet set) {
            return properties.planBook(set);
        }
        if (!properties.plans().isEmpty() || !properties.tenantPlans().isEmpty()) {
            throw new InvalidSettingException("tollgate.plans", null, "tollgate.plans and tollgate.tenant-plans"
                    + " cannot apply: the application's own RuleBook (" + rules.getClass().getName()
                    + ") decides the limits; declare the plans in it, or remove them from configuration");
        }
        return new RuleBookLimits(rules);
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
