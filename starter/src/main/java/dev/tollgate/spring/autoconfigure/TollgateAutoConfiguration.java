package dev.tollgate.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
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
 * <p>Runs after Spring Boot's Redis auto-configuration, whose Lettuce client (built from
 * {@code spring.data.redis.*}) Tollgate opens its connection on.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@EnableConfigurationProperties({TollgateProperties.class, ObservabilityProperties.class, DirectoryProperties.class,
        RedisGuardProperties.class, FallbackProperties.class, HotKeyProperties.class, AdminProperties.class,
        LocalStateProperties.class, EdgeProperties.class})
@Import({LimiterOnConfiguration.class, LimiterOffConfiguration.class, EdgeConfiguration.class})
public class TollgateAutoConfiguration {
}
