package dev.tollgate.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * Tollgate: Spring Cloud Gateway with per-tenant, per-route token buckets in Redis.
 *
 * <p>Only {@code config} and {@code dev} are scanned: the admin API's configuration must be loaded
 * into the management server's context alone (so it is never on the gateway port), never picked
 * up by a scan of the main context.
 */
@SpringBootApplication(scanBasePackages = {"dev.tollgate.gateway.config", "dev.tollgate.gateway.dev"})
@ConfigurationPropertiesScan
public class TollgateApplication {

    public static void main(String[] args) {
        SpringApplication.run(TollgateApplication.class, args);
    }
}
