package dev.tollgate.spring.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;


import dev.tollgate.core.RuleScope;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.core.region.RegionShares;
import dev.tollgate.core.region.ShareRebalancer;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The regions' SQL on a real PostgreSQL migrated by Flyway (V6). */
class RegionRepositoryTest {

    private static final RuleScope SHOP = new RuleScope("shop", "orders");
    private static PostgresDatabase postgres;
    private final RegionRepository repository = new RegionRepository();

    @BeforeAll
    static void start() {
        postgres = PostgresServer.freshDatabase();
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        dataSource.setUser(postgres.username());
        new DirectoryRepository(dataSource).migrate();
    }

    @AfterAll
    static void stop() {
        postgres.close();
    }

    @Test
    void eachRegionsDemandIsTheSumOfItsFreshInstancesLastWindows() throws Exception {
        try (Connection c = postgres.connect()) {
            c.createStatement().execute("DELETE FROM region_demand; DELETE FROM region_reporter");
            repository.publish(c, "eu-1", "eu", List.of(report(SHOP, 300, 100)), 10_000);
            repository.publish(c, "eu-2", "eu", List.of(report(SHOP, 100, 100)), 5_000);
            repository.publish(c, "us-1", "us", List.of(), 10_000); // reported: nothing above its threshold
            // eu-1 reports again: its new window replaces the old one.
            repository.publish(c, "eu-1", "eu", List.of(report(SHOP, 400, 100)), 10_000);
            c.createStatement().execute("INSERT INTO region_reporter VALUES ('ap-1', 'ap', now() - interval '1 hour')");

            assertThat(repository.reportingRegions(c, 60_000)).containsExactlyInAnyOrder("eu", "us");
            Map<RuleScope, Map<String, Double>> demand = repository.reportedDemand(c, 60_000);
            assertThat(demand.get(SHOP).get("eu")).isCloseTo(40 + 20, within(1e-9));
            assertThat(demand.get(SHOP)).doesNotContainKey("us");

            repository.pruneReporters(c, 60_000);
            try (Statement s = c.createStatement()) {
                var rs = s.executeQuery("SELECT count(*) FROM region_reporter WHERE instance_id = 'ap-1'");
                rs.next();
                assertThat(rs.getLong(1)).isZero();
            }
            repository.leave(c, "eu-2");
            assertThat(repository.reportedDemand(c, 60_000).get(SHOP).get("eu")).isCloseTo(40, within(1e-9));
        }
    }

    @Test
    void sharesWrittenAreReadBackAndTheDatabaseRefusesSharesThatDoNotSumToOne() throws Exception {
        RegionShares moved = RegionShares.ofPpm(Map.of("eu", 800_000, "us", 200_000));
        try (Connection c = postgres.connect()) {
            long before = repository.state(c).sharesVersion();
            c.setAutoCommit(false);
            repository.write(c, Map.of(SHOP, new ShareRebalancer.Tracked(moved, Map.of("eu", 80d))));
            repository.sharesChanged(c);
            c.commit();
            RegionRepository.finish(c);

            RegionRepository.Loaded loaded = repository.loadShares(c,
                    RegionShares.ofPpm(Map.of("eu", 500_000, "us", 500_000)), problem -> { });
            assertThat(loaded.version()).isEqualTo(before + 1);
            assertThat(loaded.table().sharesFor("shop", "orders")).isEqualTo(moved);
            List<String> bad = new ArrayList<>();
            ShareRebalancer.Tracked tracked = repository.tracked(c, bad::add).get(SHOP);
            assertThat(tracked.smoothedDemand()).containsExactly(Map.entry("eu", 80d)); // us: not known yet
            assertThat(bad).isEmpty();

            assertThatThrownBy(() -> {
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE region_share SET share_ppm = 700000 WHERE tenant_id = 'shop'"
                            + " AND route_id = 'orders' AND region = 'eu'");
                }
            }).isInstanceOf(SQLException.class).hasMessageContaining("sum to 900000 ppm");
            assertThat(repository.loadShares(c, moved, problem -> { }).table().sharesFor("shop", "orders"))
                    .isEqualTo(moved);
        }
    }

    private static RegionRepository.Report report(RuleScope bucket, long offered, long admitted) {
        return new RegionRepository.Report(bucket, new DemandMeter.Counts(offered, admitted));
    }
}
