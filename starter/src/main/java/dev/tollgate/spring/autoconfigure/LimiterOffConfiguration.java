package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.directory.RulesReadinessIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code tollgate.enabled=false}: the rest of Tollgate's configuration backs off (no rules or keys, no
 * database, no Redis, no local state). Only the {@code rules} readiness contributor stays, always up,
 * so that a readiness group that names it (the Tollgate application's does) still holds.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "tollgate.enabled", havingValue = false)
class LimiterOffConfiguration {

    @Bean
    RulesReadinessIndicator rulesHealthIndicator() {
        return RulesReadinessIndicator.alwaysLoaded();
    }
}
