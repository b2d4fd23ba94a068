package dev.tollgate.spring.health;

import java.util.function.BooleanSupplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Part of the readiness group: {@code OUT_OF_SERVICE} until the rules are loaded or start-up has
 * stopped waiting for them ({@code tollgate.directory.initial-load-timeout}); {@code UP} after.
 * Readiness never waits for a database that is down: an instance serving on the default rule is
 * better than no instance taking traffic (see {@link dev.tollgate.spring.settings.UnverifiedKeyPolicy UnverifiedKeyPolicy}).
 */
public final class RulesReadinessIndicator implements HealthIndicator {

    private final BooleanSupplier loaded;
    private final BooleanSupplier startupDone;

    public RulesReadinessIndicator(BooleanSupplier loaded, BooleanSupplier startupDone) {
        this.loaded = loaded;
        this.startupDone = startupDone;
    }

    /** For rules that are in memory from the start (configuration). */
    public static RulesReadinessIndicator alwaysLoaded() {
        return new RulesReadinessIndicator(() -> true, () -> true);
    }

    @Override
    public Health health() {
        boolean isLoaded = loaded.getAsBoolean();
        if (isLoaded || startupDone.getAsBoolean()) {
            return Health.up().withDetail("loaded", isLoaded).build();
        }
        return Health.outOfService().withDetail("loaded", false).build();
    }
}
