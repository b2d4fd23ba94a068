package dev.tollgate.spring.metrics;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * Where Tollgate's meters go: the application's {@link MeterRegistry} when it has one (Spring Boot's
 * actuator makes one), else a registry of Tollgate's own that nothing exports, so that counts Tollgate
 * reads back (decisions by source) still work. Deliberately not a {@code MeterRegistry} bean: one of
 * ours would turn on other libraries' metrics (Spring Cloud Gateway's per-route timers) in an
 * application that has none.
 */
public record TollgateMeters(MeterRegistry registry) {

    public TollgateMeters {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null");
        }
    }
}
