package dev.tollgate.spring.directory.refresh;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.core.ManualScheduler;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.DirectorySnapshot;
import dev.tollgate.spring.directory.database.ChangeLogFollower;
import dev.tollgate.spring.directory.database.DirectoryChange;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.spring.settings.DirectoryProperties;
import dev.tollgate.spring.settings.UnverifiedKeyPolicy;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import dev.tollgate.spring.postgres.ConnectionPolicy;
import dev.tollgate.spring.postgres.DirectoryConnectionPool;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The refresher against a real PostgreSQL, with time moved by hand ({@link ManualScheduler}) and no
 * change listener: what the poll, the full reload and the pruning do on their own, with the
 * intervals as shipped.
 */
class DirectoryRefresherTest {

    private static final RateLimitRule DEFAULT_RULE = RateLimitRule.of(20, 10);
    /** {@code tollgate.directory.*} with nothing set: the defaults as shipped. */
    private static final DirectoryProperties SHIPPED = new Binder(new MapConfigurationPropertySource(Map.of()))
            .bindOrCreate("tollgate.directory", DirectoryProperties.class);

    private static PostgresDatabase postgres;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.freshDatabase();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN IF to_regclass('rate_limit_rule') IS NOT NULL THEN"
                    + " TRUNCATE rate_limit_rule, api_key, directory_change; END IF; END $$");
        }
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) { // the refresher before the connection it uses
            toClose.get(i).close();
        }
    }

    private Directory directory() {
        return new Directory(DirectorySnapshot.notLoaded(DEFAULT_RULE, "default"), UnverifiedKeyPolicy.SHARED_DEFAULT_RULE);
    }

    private DirectoryRefresher refresher(Directory directory, String jdbcUrl, List<ChangeLogFollower> followers) {
        return refresher(directory, jdbcUrl, followers, scheduler);
    }

    private DirectoryRefresher refresher(Directory directory, String jdbcUrl, List<ChangeLogFollower> followers,
                                         ManualScheduler scheduler) {
        // The gateway's own pool: an hour moved by hand runs 120 polls, and a connection opened for
        // each (as a DriverManagerDataSource does) took most of this class's time.
        DirectoryConnectionPool pool = DirectoryConnectionPool.open(
                new DatabaseEndpoint(jdbcUrl, postgres.username(), postgres.password()), SHIPPED.poolSize(), ConnectionPolicy.DEFAULT);
        toClose.add(pool);
        DirectoryRepository repository = new DirectoryRepository(pool.dataSource());
        DirectoryRefresher refresher = new DirectoryRefresher(repository, directory,
                new DirectoryRefresher.Settings(SHIPPED.refreshInterval(), SHIPPED.fullReloadInterval(),
                        SHIPPED.retryDelay(), SHIPPED.changeRetention(), SHIPPED.changeLookback(), true),
                meters, List.of(), followers, null, scheduler, null);
        toClose.add(refresher);
        return refresher;
    }

    private DirectoryRefresher startedAndLoaded(Directory directory, List<ChangeLogFollower> followers) {
        DirectoryRefresher refresher = refresher(directory, postgres.jdbcUrl(), followers);
        refresher.start();
        scheduler.runDue();
        assertThat(directory.snapshot().origin()).isEqualTo(DirectorySnapshot.Origin.DATABASE);
        return refresher;
    }

    private static void sql(String statement) throws SQLException {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private double ageGauge() {
        return meters.get("tollgate.directory.snapshot.age").gauge().value();
    }

    @Test
    void withoutNotificationsTheShippedThirtySecondPollCarriesAChange() throws SQLException {
        assertThat(SHIPPED.refreshInterval()).isEqualTo(Duration.ofSeconds(30));
        Directory directory = directory();
        startedAndLoaded(directory, List.of());

        sql("INSERT INTO rate_limit_rule (tenant_id, route_id, capacity, refill_per_second) VALUES ('polled', 'r', 7, 1)");
        scheduler.advance(Duration.ofSeconds(30).minusMillis(1));
        assertThat(directory.ruleFor("polled", "r")).isEqualTo(DEFAULT_RULE);

        scheduler.advance(Duration.ofMillis(1));
        assertThat(directory.ruleFor("polled", "r").capacity()).isEqualTo(7);

        // And again 30 s later: the poll goes on by itself.
        sql("UPDATE rate_limit_rule SET capacity = 8 WHERE tenant_id = 'polled'");
        scheduler.advance(Duration.ofSeconds(30));
        assertThat(directory.ruleFor("polled", "r").capacity()).isEqualTo(8);
    }

    @Test
    void aChangeSignalledBeforeTheStartAsksForNothing() {
        // The listener connects (and signals) in an earlier phase than the refresher starts: the first
        // load belongs to start(), in its own phase.
        Directory directory = directory();
        DirectoryRefresher refresher = refresher(directory, postgres.jdbcUrl(), List.of());
        refresher.refreshSoon();
        scheduler.runDue();
        assertThat(directory.snapshot().origin()).as("not loaded before start()").isEqualTo(DirectorySnapshot.Origin.NOT_LOADED);

        refresher.start();
        scheduler.runDue();
        assertThat(directory.snapshot().origin()).isEqualTo(DirectorySnapshot.Origin.DATABASE);
    }

    @Test
    void theSnapshotAgeIsNaNBeforeTheFirstLoadThenCountedOnTheInjectedClock() {
        Directory directory = directory();
        // A scheduler of its own: moving the other refresher's time below must not run this one's
        // retries, each of which waits the pool's 2 s for a database that is not there.
        ManualScheduler unreachableTime = new ManualScheduler();
        DirectoryRefresher refresher = refresher(directory, "jdbc:postgresql://127.0.0.1:" + FreePort.find()
                + "/postgres?connectTimeout=2", List.of(), unreachableTime);
        assertThat(ageGauge()).isNaN();
        refresher.start();
        unreachableTime.runDue();
        assertThat(refresher.status().lastError()).isNotBlank();
        assertThat(refresher.status().snapshotAge()).isEmpty();
        assertThat(ageGauge()).isNaN();

        DirectoryRefresher reachable = startedAndLoaded(directory(), List.of());
        scheduler.advance(Duration.ofMillis(12_345));
        assertThat(reachable.status().snapshotAge()).contains(Duration.ofMillis(12_345));
    }

    @Test
    void theFullReloadPrunesTheChangeLogByTheDatabasesClock() throws SQLException {
        Directory directory = directory();
        startedAndLoaded(directory, List.of());
        sql("INSERT INTO directory_change (kind, tenant_id, route_id, changed_at) VALUES"
                + " ('rule', 'old', 'r', now() - interval '24 hours 1 minute'),"
                + " ('rule', 'recent', 'r', now() - interval '23 hours 59 minutes')");
        assertThat(SHIPPED.fullReloadInterval()).isEqualTo(Duration.ofHours(1));
        assertThat(SHIPPED.changeRetention()).isEqualTo(Duration.ofHours(24));

        scheduler.advance(Duration.ofMinutes(59));
        assertThat(changeTenants()).containsExactlyInAnyOrder("old", "recent");
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(changeTenants()).containsExactly("recent");
    }

    private static List<String> changeTenants() throws SQLException {
        List<String> tenants = new ArrayList<>();
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT tenant_id FROM directory_change")) {
            while (rs.next()) {
                tenants.add(rs.getString(1));
            }
        }
        return tenants;
    }

    @Test
    void aFollowerGetsTheRowsOfItsKindOnThePollAndReloadsWithEveryFullLoad() throws SQLException {
        List<String> calls = new ArrayList<>();
        ChangeLogFollower follower = new ChangeLogFollower() {
            @Override
            public String kind() {
                return "probe";
            }

            @Override
            public void reloadAll() {
                calls.add("reloadAll");
            }

            @Override
            public void changed(List<DirectoryChange> rows) {
                rows.forEach(row -> calls.add("changed " + row.tenant()));
            }
        };
        Directory directory = directory();
        startedAndLoaded(directory, List.of(follower));
        assertThat(calls).containsExactly("reloadAll");

        // A kind of its own needs the table's check to allow it (a follower's migration would widen it).
        sql("ALTER TABLE directory_change DROP CONSTRAINT IF EXISTS directory_change_kind_check");
        sql("INSERT INTO directory_change (kind, tenant_id) VALUES ('probe', 'p1'), ('mystery', 'm1')");
        sql("INSERT INTO rate_limit_rule (tenant_id, route_id, capacity, refill_per_second) VALUES ('along', 'r', 5, 1)");
        scheduler.advance(SHIPPED.refreshInterval());
        assertThat(calls).containsExactly("reloadAll", "changed p1");
        // A kind nobody follows is skipped; the rules and keys around it are applied.
        assertThat(directory.ruleFor("along", "r").capacity()).isEqualTo(5);

        // The full reload falls due on the poll one hour after the first load.
        scheduler.advance(SHIPPED.fullReloadInterval().minus(SHIPPED.refreshInterval()));
        assertThat(calls).filteredOn("reloadAll"::equals).hasSize(2);
        assertThat(calls.get(calls.size() - 1)).isEqualTo("reloadAll");
    }
}
