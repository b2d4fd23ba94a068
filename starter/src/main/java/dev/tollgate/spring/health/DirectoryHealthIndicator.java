package dev.tollgate.spring.health;

import dev.tollgate.core.WallClock;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.DirectorySnapshot;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.directory.refresh.RefreshStatus;
import dev.tollgate.spring.postgres.NotificationListener;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Reports the rules and keys read from PostgreSQL: {@code UP} while refreshes succeed,
 * {@code DEGRADED} while the database cannot be read (the last snapshot, the one saved on disk, or
 * before any the default rule, stays in force). Never {@code DOWN}: the gateway keeps serving.
 */
public final class DirectoryHealthIndicator implements HealthIndicator {

    static final Status DEGRADED = TollgateStatus.degraded(
            "PostgreSQL is unreachable: the last rules and keys read stay in force");

    private final Directory directory;
    private final DirectoryRefresher refresher;
    private final NotificationListener listener;
    private final WallClock wallClock;

    /** @param wallClock turns the snapshot's age into the time of day shown as {@code lastRefresh} */
    public DirectoryHealthIndicator(Directory directory, DirectoryRefresher refresher, NotificationListener listener,
                                    WallClock wallClock) {
        this.directory = directory;
        this.refresher = refresher;
        this.listener = listener;
        this.wallClock = wallClock;
    }

    @Override
    public Health health() {
        DirectorySnapshot snapshot = directory.snapshot();
        RefreshStatus status = refresher.status();
        boolean ok = snapshot.origin() == DirectorySnapshot.Origin.DATABASE && status.isDatabaseReachable();
        Health.Builder health = Health.status(ok ? Status.UP : DEGRADED)
                .withDetail("loaded", snapshot.loaded())
                .withDetail("source", snapshot.origin().tag())
                .withDetail("rules", snapshot.rules().size())
                .withDetail("apiKeys", snapshot.tenantByKey().size())
                .withDetail("listening", listener.isListening());
        Optional<Duration> age = status.snapshotAge();
        if (age.isPresent()) {
            // The age is measured on the monotonic clock; the wall clock only turns it into a time to show.
            health.withDetail("lastRefresh", wallClock.now().minus(age.get()).toString())
                    .withDetail("snapshotAgeMillis", age.get().toMillis());
        }
        refresher.snapshotFile().ifPresent(file -> health.withDetail("snapshotFile", file.path().toString()));
        if (status.lastError() != null) {
            health.withDetail("error", status.lastError());
        }
        return health.build();
    }
}
