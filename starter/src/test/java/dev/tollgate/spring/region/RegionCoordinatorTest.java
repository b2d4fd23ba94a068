package dev.tollgate.spring.region;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.core.ManualScheduler;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.core.region.RebalancerSettings;
import dev.tollgate.core.region.RegionShares;
import dev.tollgate.core.region.ShareRebalancer;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.spring.postgres.ConnectionPolicy;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresEndpoint;
import dev.tollgate.testkit.PostgresServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The region coordinator's work is a series of short tasks on its scheduler, timed on the
 * scheduler's clock: here a manual one, so an interval passes when the test moves it and nothing
 * sleeps. PostgreSQL is real: the rebalancer's lock is a real advisory lock.
 */
class RegionCoordinatorTest {

    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Duration RETRY_DELAY = Duration.ofSeconds(2);
    private static final RegionShares DEFAULTS = RegionShares.ofPpm(Map.of("eu", 500_000, "us", 500_000));

    private static DatabaseEndpoint migrated(PostgresEndpoint postgres) {
        new DirectoryRepository(new DriverManagerDataSource(postgres.jdbcUrl(), postgres.username(),
                postgres.password())).migrate();
        return new DatabaseEndpoint(postgres.jdbcUrl(), postgres.username(), postgres.password());
    }

    private static RegionCoordinator coordinator(DatabaseEndpoint endpoint, String instanceId,
                                                 ManualScheduler scheduler) {
        CurrentShares shares = new CurrentShares("eu", DEFAULTS);
        RuleSet rules = RuleSet.of(RateLimitRule.of(100, 10), List.of());
        RegionCoordinator coordinator = new RegionCoordinator(new RegionCoordinator.Parts(ConnectionPolicy.DEFAULT,
                endpoint, shares, new DemandMeter(scheduler.clock()), rules, rules, () -> 1, instanceId,
                new ShareRebalancer(new RebalancerSettings(DEFAULTS, 50_000, 0.7, 0.5)), INTERVAL, RETRY_DELAY,
                scheduler));
        coordinator.measuredBy(new RebalancerMetrics(new SimpleMeterRegistry(), coordinator, shares));
        return coordinator;
    }

    @Test
    void oneInstanceLeadsAndAnotherTakesOverWithinAnIntervalOnceItStopsAndItCanStartAgain() {
        ManualScheduler first = new ManualScheduler();
        ManualScheduler second = new ManualScheduler();
        try (PostgresDatabase postgres = PostgresServer.freshDatabase()) {
            DatabaseEndpoint endpoint = migrated(postgres);
            try (RegionCoordinator a = coordinator(endpoint, "a", first);
                 RegionCoordinator b = coordinator(endpoint, "b", second)) {
                assertThat(a.isConnected()).as("constructed, not started").isFalse();
                a.start();
                first.runDue();
                assertThat(a.isConnected()).isTrue();
                assertThat(a.isLeader()).isTrue();
                assertThat(first.pendingDelays()).containsExactly(INTERVAL);

                b.start();
                second.runDue();
                assertThat(b.isConnected()).isTrue();
                assertThat(b.isLeader()).as("the lock is a's").isFalse();

                // a stops: its connection, and with it the lock, is given up; b takes it at its next tick.
                assertThat(a.stop()).isNotDone();
                first.runDue();
                assertThat(a.isStopped()).isTrue();
                assertThat(a.isLeader()).isFalse();
                assertThat(first.pendingDelays()).as("a stopped coordinator's ticks do nothing").hasSize(1);
                first.advance(INTERVAL);
                assertThat(first.pendingDelays()).isEmpty();
                second.advance(INTERVAL.minusNanos(1));
                assertThat(b.isLeader()).isFalse();
                second.advance(Duration.ofNanos(1));
                assertThat(b.isLeader()).isTrue();

                // a starts again, afresh: connected, and a follower now.
                a.start();
                first.runDue();
                assertThat(a.isConnected()).isTrue();
                assertThat(a.isLeader()).isFalse();
                assertThat(first.pendingDelays()).containsExactly(INTERVAL);
            }
        }
    }

    @Test
    void aLostDatabaseIsRetriedEveryRetryDelayOnTheClockAndTheSharesStay() {
        ManualScheduler scheduler = new ManualScheduler();
        try (PostgresServer postgres = PostgresServer.start()) {
            DatabaseEndpoint endpoint = migrated(postgres);
            try (RegionCoordinator coordinator = coordinator(endpoint, "a", scheduler)) {
                coordinator.start();
                scheduler.runDue();
                assertThat(coordinator.isConnected()).isTrue();
                assertThat(coordinator.lastError()).isNull();

                postgres.stop();
                scheduler.advance(INTERVAL); // the tick finds the connection gone
                assertThat(coordinator.isConnected()).isFalse();
                assertThat(coordinator.isLeader()).isFalse();
                assertThat(coordinator.lastError()).isNotNull();
                assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY);
                scheduler.advance(RETRY_DELAY);
                assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY);

                postgres.restart();
                scheduler.advance(RETRY_DELAY);
                assertThat(coordinator.isConnected()).isTrue();
                assertThat(coordinator.isLeader()).isTrue();
                assertThat(coordinator.lastError()).isNull();
                assertThat(scheduler.pendingDelays()).containsExactly(INTERVAL);
            }
        }
    }

    @Test
    void aNotificationQueuesOneReadOfTheSharesAndNoneBeforeTheCoordinatorRuns() {
        ManualScheduler scheduler = new ManualScheduler();
        try (PostgresDatabase postgres = PostgresServer.freshDatabase()) {
            DatabaseEndpoint endpoint = migrated(postgres);
            try (RegionCoordinator coordinator = coordinator(endpoint, "a", scheduler)) {
                coordinator.sharesChanged();
                assertThat(scheduler.pendingDelays()).as("not started: nothing to read on").isEmpty();

                coordinator.start();
                scheduler.runDue();
                coordinator.sharesChanged();
                coordinator.sharesChanged(); // merged with the one queued
                assertThat(scheduler.pendingDelays()).containsExactly(Duration.ZERO, INTERVAL);
                scheduler.runDue();
                assertThat(coordinator.isConnected()).isTrue();
                assertThat(coordinator.lastRunAgeSeconds()).isNotNaN(); // it ran the rebalancer and read its state
            }
        }
    }
}
