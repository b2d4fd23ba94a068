package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.filter.TollgateRateLimiter;
import dev.tollgate.spring.filter.UnlimitedRateLimiter;
import dev.tollgate.spring.health.RulesReadinessIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * {@code tollgate.enabled=false}: the rest of Tollgate's configuration backs off (no rules or keys, no
 * database, no Redis, no local state). What routes and health groups refer to by name stays, doing
 * nothing: the {@code rules} readiness contributor, always up, so that a readiness group that names it
 * (the Tollgate application's does) still holds; and {@code tollgateRateLimiter}, which admits every
 * request, so that routes naming {@code #{@tollgateRateLimiter}} still start and are served unlimited.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(TollgateSwitches.LimiterOff.class)
class LimiterOffConfiguration {

    @Bean
    RulesReadinessIndicator rulesHealthIndicator() {
        return RulesReadinessIndicator.alwaysLoaded();
    }

    /** By name only, like the limiter it stands in for (see {@link RateLimitingConfiguration}). */
    @Bean(name = TollgateRateLimiter.BEAN_NAME, defaultCandidate = false)
    UnlimitedRateLimiter tollgateRateLimiter() {
        return new UnlimitedRateLimiter();
    }
}
