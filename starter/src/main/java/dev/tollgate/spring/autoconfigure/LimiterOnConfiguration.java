package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.settings.AdminProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * Everything of the limiter, behind its one switch: rules and keys (from PostgreSQL or from
 * configuration), the local-state folder, the Redis path, token leases, the filter, metrics and
 * health. With {@code tollgate.enabled=false} none of it exists ({@link LimiterOffConfiguration} takes
 * over): the gateway forwards without limiting, reads no rules or keys, opens no Redis connection and,
 * above all, sends no heartbeat, so it is not counted among the instances the local fallback divides
 * limits by. The benchmark's "no limiter" baseline is this very application with the switch off.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(TollgateSwitches.LimiterOn.class)
@Import({LocalStateConfiguration.class, DatabaseDirectoryConfiguration.class,
        PostgresSupportMissingConfiguration.class, StaticDirectoryConfiguration.class,
        RedisStoreConfiguration.class, HotKeyLeaseConfiguration.class, RateLimitingConfiguration.class,
        JwtConfiguration.class})
class LimiterOnConfiguration {

    /** Refuses to start with actuator on the public port; warns of a short admin token. */
    @Bean
    ManagementPortCheck managementPortCheck(Environment environment, AdminProperties admin) {
        return ManagementPortCheck.check(environment, admin);
    }
}
