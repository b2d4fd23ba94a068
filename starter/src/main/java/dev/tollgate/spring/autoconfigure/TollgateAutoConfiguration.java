package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.metrics.TollgateMeters;
import dev.tollgate.spring.settings.AdminProperties;
import dev.tollgate.spring.settings.DatasourceProperties;
import dev.tollgate.spring.settings.DirectoryProperties;
import dev.tollgate.spring.settings.EdgeProperties;
import dev.tollgate.spring.settings.IdentityProperties;
import dev.tollgate.spring.settings.JwtProperties;
import dev.tollgate.spring.settings.FallbackProperties;
import dev.tollgate.spring.settings.HotKeyProperties;
import dev.tollgate.spring.settings.LocalStateProperties;
import dev.tollgate.spring.settings.ObservabilityProperties;
import dev.tollgate.spring.settings.RedisGuardProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Adds Tollgate to a Spring Cloud Gateway application: the rules and API keys (from PostgreSQL or
 * from configuration), the Redis path with its circuit breaker and local fallback, the global
 * rate-limit filter and the {@code tollgateRateLimiter} bean for Spring Cloud Gateway's own
 * {@code RequestRateLimiter} filter (by name only: it never becomes the limiter of routes that did not
 * name it), health and metrics, and the edge ({@link EdgeConfiguration}): connection timeouts and,
 * where the global filter limits every route, one canonical path per request before routing and no API
 * key forwarded. Each piece backs off when the application defines a bean of the same type;
 * {@code tollgate.enabled=false} turns the limiter off altogether ({@link LimiterOnConfiguration}:
 * nothing that reads PostgreSQL or Redis is built, and routes are forwarded as they would be without
 * Tollgate unless the edge is switched on explicitly).
 *
 * <p>Needs no more of Spring Boot than Spring Cloud Gateway does: Redis is read from
 * {@code spring.data.redis.*} by Tollgate itself (no Spring Data Redis), health indicators and meters
 * are there for an application that adds the actuator, and rules in PostgreSQL need
 * {@code tollgate-spring-boot-starter-postgresql} ({@link DatabaseDirectoryConfiguration}).
 * Spring Cloud Gateway's {@code RequestRateLimiter} filter, for an application whose only limiter is
 * Tollgate's, comes from {@link RequestRateLimiterConfiguration}.
 */
@AutoConfiguration
@EnableConfigurationProperties({TollgateProperties.class, ObservabilityProperties.class, DirectoryProperties.class,
        DatasourceProperties.class,
        RedisGuardProperties.class, FallbackProperties.class, HotKeyProperties.class, AdminProperties.class,
        LocalStateProperties.class, EdgeProperties.class, IdentityProperties.class, JwtProperties.class})
@Import({LimiterOnConfiguration.class, LimiterOffConfiguration.class, EdgeConfiguration.class})
public class TollgateAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TollgateMeters tollgateMeters(ObjectProvider<MeterRegistry> registries) {
        return new TollgateMeters(registries.getIfAvailable(SimpleMeterRegistry::new));
    }
}
