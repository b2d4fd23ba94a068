package dev.tollgate.spring.directory;

import dev.tollgate.spring.health.TollgateStatus;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Reports the rules and keys read from PostgreSQL: {@code UP} while refreshes succeed,
 * {@code DEGRADED} while the database cannot be read (the last snapshot, or before the first load
 * the default rule, stays in force). Never {@code DOWN}: the gateway keeps serving.
 */
public final class DirectoryHealthIndicator implements HealthIndicator {

    static final Status DEGRADED = TollgateStatus.degraded(
            "PostgreSQL is unreachable: the last rules and keys read stay in force");

    private final Directory directory;
    private final DirectoryRefresher refresher;
    private final ChangeListener listener;

    public DirectoryHealthIndicator(Directory directory, DirectoryRefresher refresher, ChangeListener listener) {
        this.directory = directory;
        this.refresher = refresher;
        this.listener = listener;
    }

    @Override
    public Health health() {
        DirectorySnapshot snapshot = directory.snapshot();
        boolean ok = snapshot.loaded() && refresher.isDatabaseReachable();
        Health.Builder health = Health.status(ok ? Status.UP : DEGRADED)
                .withDetail("loaded", snapshot.loaded())
                .withDetail("rules", snapshot.rules().size())
                .withDetail("apiKeys", snapshot.tenantByKey().size())
                .withDetail("listening", listener.isListening());
        if (refresher.lastSuccess() != null) {
            health.withDetail("lastRefresh", refresher.lastSuccess().toString())
                    .withDetail("snapshotAgeMillis", refresher.snapshotAge().toMillis());
        }
        if (refresher.lastError() != null) {
            health.withDetail("error", refresher.lastError());
        }
        return health.build();
    }
}
