package dev.tollgate.spring.health;

import dev.tollgate.spring.region.CurrentShares;
import dev.tollgate.spring.region.RegionCoordinator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The region this instance enforces limits for, and the rebalancer as this instance sees it:
 * {@code UP} while shares can be read and some instance runs the rebalancer; {@code DEGRADED}
 * (still HTTP 200, still limiting) while PostgreSQL cannot be reached (the last shares stay in force)
 * or no instance has run the rebalancer for three intervals (the shares stay where they are). Never
 * {@code DOWN}.
 */
public final class RegionHealthIndicator implements HealthIndicator {

    /** PostgreSQL cannot be reached: this region enforces the last shares read (not Redis's trouble). */
    static final Status SHARES_KEPT = TollgateStatus.degraded(
            "PostgreSQL is unreachable: this region enforces the last shares read; no reports, no rebalancing");

    /** Connected, but no instance ran the rebalancer lately. */
    static final Status REBALANCER_IDLE = TollgateStatus.degraded(
            "No instance has run the rebalancer for three intervals: the shares stay where they are");

    private final CurrentShares shares;
    private final RegionCoordinator coordinator; // null: shares fixed at the defaults

    public RegionHealthIndicator(CurrentShares shares, RegionCoordinator coordinator) {
        this.shares = shares;
        this.coordinator = coordinator;
    }

    @Override
    public Health health() {
        Health.Builder health = Health.up()
                .withDetail("region", shares.region())
                .withDetail("defaultShares", shares.get().defaults().fractions())
                .withDetail("trackedBuckets", shares.get().stored().size());
        if (coordinator == null) {
            return health.withDetail("rebalancer", "off").build();
        }
        double age = coordinator.lastRunAgeSeconds();
        health.withDetail("rebalancer", coordinator.isLeader() ? "leader" : "follower")
                .withDetail("sharesVersion", shares.version())
                .withDetail("databaseConnected", coordinator.isConnected());
        if (coordinator.isOnStandby()) {
            health.withDetail("database", "read replica: shares read every interval, no reports, no rebalancer");
        }
        if (!Double.isNaN(age)) {
            health.withDetail("lastRunAgeSeconds", Math.round(age * 10) / 10.0);
        }
        if (coordinator.isLeader() && !coordinator.silentRegions().isEmpty()) {
            health.withDetail("waitingForRegions", coordinator.silentRegions());
        }
        if (!coordinator.isConnected()) {
            health.status(SHARES_KEPT).withDetail("reason",
                    "PostgreSQL unreachable: the last shares read stay in force (GET /admin/regions/shares)");
            if (coordinator.lastError() != null) {
                health.withDetail("error", coordinator.lastError());
            }
        } else if (age > 3 * coordinator.interval().toMillis() / 1000.0) {
            health.status(REBALANCER_IDLE).withDetail("reason",
                    "no instance has run the rebalancer for three intervals: the shares stay where they are");
        }
        return health.build();
    }
}
