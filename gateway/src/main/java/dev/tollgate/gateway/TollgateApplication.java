package dev.tollgate.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Tollgate: Spring Cloud Gateway with per-tenant, per-route token buckets in Redis. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class TollgateApplication {

    public static void main(String[] args) {
        SpringApplication.run(TollgateApplication.class, args);
    }
}
