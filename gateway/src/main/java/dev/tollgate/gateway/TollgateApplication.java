package dev.tollgate.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Tollgate: Spring Cloud Gateway with per-tenant, per-route token buckets in Redis. Everything but
 * the routes and the defaults in {@code application.yml} comes from the Tollgate starter's
 * auto-configuration ({@code dev.tollgate.spring.autoconfigure.TollgateAutoConfiguration}).
 */
@SpringBootApplication
public class TollgateApplication {

    public static void main(String[] args) {
        EventLoopCount.onePerCoreUnlessSet();
        SpringApplication.run(TollgateApplication.class, args);
    }
}
