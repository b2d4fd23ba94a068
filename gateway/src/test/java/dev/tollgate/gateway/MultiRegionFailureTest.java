package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.core.region.RegionShares;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.spring.region.CurrentShares;
import dev.tollgate.spring.region.RegionCoordinator;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two regions, three gateways (two in eu, one in us), one PostgreSQL: what happens when a region's
 * Redis, PostgreSQL, or the instance that runs the rebalancer goes away. Each test leaves every
 * server and every instance's region coordinator running as it found them (the one that stops a
 * coordinator starts it again), so they pass in any order: JUnit runs them in a random one.
 */
@TestMethodOrder(MethodOrderer.Random.class)
class MultiRegionFailureTest {

    /** The rebalancer's advisory lock key ("tollgate" in ASCII), as RegionRepository takes it. */
    private static final long REBALANCER_LOCK = 0x746f6c6c67617465L;

    private static PostgresServer postgres;
    private static RedisServer euRedis;
    private static RedisServer usRedis;
    private static TestUpstream upstream;
    private static RunningGateway eu1;
    private static RunningGateway eu2;
    private static RunningGateway us1;

    @BeforeAll
    static void start() {
        postgres = PostgresServer.start();
        euRedis = RedisServer.start();
        usRedis = RedisServer.start();
        upstream = new TestUpstream();
        eu1 = RunningGateway.start(RegionGateways.properties("eu", postgres, euRedis, upstream.uri()));
        eu2 = RunningGateway.start(RegionGateways.properties("eu", postgres, euRedis, upstream.uri()));
        us1 = RunningGateway.start(RegionGateways.properties("us", postgres, usRedis, upstream.uri()));
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(us1, eu2, eu1, upstream, usRedis, euRedis, postgres);
    }

    private static List<RunningGateway> all() {
        return List.of(eu1, eu2, us1);
    }

    private static void awaitKey(String key) {
        RegionGateways.awaitKey(key, all());
    }

    private static int admitted(RunningGateway gateway, String key, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            admitted += gateway.send("POST", "/orders", key).statusCode() == 200 ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void aRegionWhoseRedisIsDownFallsBackOnItsRegionalShare() throws Exception {
        // Each region's Redis sees its own instances only: eu counts 2, us counts 1.
        await().atMost(Duration.ofSeconds(10)).until(() ->
                eu1.context().getBean(LiveInstances.class).count() == 2
                        && eu2.context().getBean(LiveInstances.class).count() == 2
                        && us1.context().getBean(LiveInstances.class).count() == 1);
        RegionGateways.putRule(eu1, "outage", "create-order", 10, 0.01);
        String key = RegionGateways.createKey(eu1, "outage");
        awaitKey(key);
        await().atMost(Duration.ofSeconds(5)).until(() -> all().stream()
                .allMatch(g -> g.context().getBean(Directory.class).ruleFor("outage", "create-order").capacity() == 10));

        usRedis.kill();
        try {
            // N no longer comes from a Redis heartbeat (its beat failed, or is older than the
            // time-to-live of 3 s), and whatever it comes from must still count this region's
            // instances only.
            LiveInstances usInstances = us1.context().getBean(LiveInstances.class);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !usInstances.current().source().equals("redis-heartbeat"));
            // us: its half of the burst (5 of 10), enforced locally by its one instance.
            HttpResponse<String> first = us1.send("POST", "/orders", key);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("5");
            assertThat(1 + admitted(us1, key, 10)).isEqualTo(5);
            assertThat(us1.management("/actuator/health/rateLimiter").body()).contains("DEGRADED");
            // eu: its own Redis, its own half, shared by its two instances.
            assertThat(admitted(eu1, key, 4) + admitted(eu2, key, 4) + admitted(eu1, key, 4)).isEqualTo(5);
            assertThat(eu1.management("/actuator/health/rateLimiter").body()).contains("\"status\":\"UP\"");
        } finally {
            usRedis.restart();
        }
    }

    @Test
    void whilePostgresIsUnreachableEveryInstanceKeepsTheLastSharesItRead() {
        RegionGateways.putRule(eu1, "steady", "create-order", 20, 20);
        String key = RegionGateways.createKey(eu1, "steady");
        awaitKey(key);
        // 80 % in eu (over its two instances), 20 % in us, twice the limit.
        try (GatewayLoad load = GatewayLoad.paced(all(), new int[] {0, 1, 0, 1, 2}, 40, "POST", "/orders", key)) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> all().stream()
                    .allMatch(g -> RegionGateways.shares(g, "steady", "create-order").ppm("eu") >= 750_000));
            await().atMost(Duration.ofSeconds(10)).until(() -> all().stream().map(g ->
                    RegionGateways.shares(g, "steady", "create-order")).distinct().count() == 1);
            RegionShares lastRead = RegionGateways.shares(eu1, "steady", "create-order");

            postgres.stop();
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> all().stream().allMatch(g ->
                        g.management("/actuator/health/region").body().contains("DEGRADED")));
                String regionHealth = us1.management("/actuator/health/region").body();
                assertThat(regionHealth).contains("PostgreSQL unreachable: the last shares read stay in force")
                        .contains("PostgreSQL is unreachable: this region enforces the last shares read")
                        .doesNotContain("Redis");
                // The shares in force, from the instance's memory, with the database gone.
                for (RunningGateway g : all()) {
                    HttpResponse<String> inForce = g.admin("GET", "/admin/regions/shares?tenant=steady", null,
                            DatabaseGateways.ADMIN_TOKEN);
                    assertThat(inForce.statusCode()).as(inForce.body()).isEqualTo(200);
                    assertThat(JsonPath.<String>read(inForce.body(), "$.buckets[0].route")).isEqualTo("create-order");
                    assertThat(JsonPath.<Double>read(inForce.body(), "$.buckets[0].shares.eu"))
                            .isEqualTo(lastRead.fractions().get("eu"));
                    assertThat(JsonPath.<Double>read(inForce.body(), "$.defaultShares.eu")).isEqualTo(0.5);
                    assertThat(JsonPath.<Integer>read(inForce.body(), "$.total")).isEqualTo(1);
                }
                await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> all().stream()
                        .allMatch(g -> RegionGateways.shares(g, "steady", "create-order").equals(lastRead)));
                long euCapacity = 20L * lastRead.ppm("eu") / 1_000_000;
                assertThat(eu2.send("POST", "/orders", key).headers().firstValue("X-RateLimit-Limit"))
                        .hasValue(Long.toString(euCapacity));
                assertThat(RegionGateways.coordinator(eu1).isLeader() || RegionGateways.coordinator(eu2).isLeader()
                        || RegionGateways.coordinator(us1).isLeader()).as("no lock without PostgreSQL").isFalse();
            } finally {
                postgres.restart();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> all().stream().allMatch(g ->
                    g.management("/actuator/health/region").body().contains("\"status\":\"UP\"")));
            await().atMost(Duration.ofSeconds(10)).until(() -> all().stream()
                    .filter(g -> RegionGateways.coordinator(g).isLeader()).count() == 1);
            assertThat(load.count(a -> a.status() == 0)).as("no request failed").isZero();
        }
    }

    @Test
    void aLeaderWhoseDatabaseSessionIsKilledLosesTheLockAndExactlyOneInstanceHoldsItAgain() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> all().stream()
                .filter(g -> RegionGateways.coordinator(g).isLeader()).count() == 1);
        long killed;
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_locks"
                     + " WHERE locktype = 'advisory' AND granted AND objid = " + (REBALANCER_LOCK & 0xffffffffL))) {
            rs.next();
            killed = rs.getLong(1);
        }
        assertThat(killed).as("the lock holder's session").isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> all().stream()
                .filter(g -> RegionGateways.coordinator(g).isLeader()).count() == 1
                && lockHolders() == 1);
    }

    /** Rebalancer runs this gateway made, whatever their outcome. */
    private static double runs(RunningGateway gateway) {
        return gateway.context().getBean(MeterRegistry.class)
                .find("tollgate.rebalancer.runs").counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private static long lockHolders() throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                     + " AND objid = " + (REBALANCER_LOCK & 0xffffffffL))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void whenTheRebalancersInstanceDiesAnotherTakesOverAndTheSharesStayMeanwhile() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> all().stream()
                .filter(g -> RegionGateways.coordinator(g).isLeader()).count() == 1);
        RunningGateway leader = all().stream().filter(g -> RegionGateways.coordinator(g).isLeader()).findFirst()
                .orElseThrow();
        List<RunningGateway> survivors = new ArrayList<>(all());
        survivors.remove(leader);
        Map<RunningGateway, Double> runsBefore = new HashMap<>();
        survivors.forEach(g -> runsBefore.put(g, runs(g)));

        // The leader's region work stops, and its database session with it (the rest of an in-process
        // gateway cannot be stopped alone: gateways in one JVM share Reactor Netty's loops). It starts
        // again at the end, as a follower, so that the other tests find three coordinators.
        RegionCoordinator stopped = RegionGateways.coordinator(leader);
        stopped.stop().get(5, TimeUnit.SECONDS);
        try {
            theSurvivorsKeepTheSharesUntilOneOfThemTakesOver(survivors, runsBefore);
        } finally {
            stopped.start();
        }
        await().atMost(Duration.ofSeconds(10)).until(stopped::isConnected);
        assertThat(stopped.isLeader()).as("the lock is the new leader's").isFalse();
    }

    private static void theSurvivorsKeepTheSharesUntilOneOfThemTakesOver(List<RunningGateway> survivors,
                                                                        Map<RunningGateway, Double> runsBefore)
            throws Exception {
        long lastWritten = sharesVersionInDatabase();
        await().atMost(Duration.ofSeconds(5)).until(() -> survivors.stream().allMatch(g -> version(g) >= lastWritten));
        Map<RunningGateway, RegionShares> before = new HashMap<>();
        survivors.forEach(g -> before.put(g, RegionGateways.shares(g, "steady", "create-order")));

        // Until another instance holds the lock nobody writes shares: read them first, then the roles.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            boolean unchanged = survivors.stream().allMatch(g ->
                    version(g) == lastWritten && RegionGateways.shares(g, "steady", "create-order").equals(before.get(g)));
            boolean led = survivors.stream().anyMatch(g -> RegionGateways.coordinator(g).isLeader());
            assertThat(unchanged || led).as("shares changed while no instance ran the rebalancer").isTrue();
            return led;
        });
        RunningGateway next = survivors.stream().filter(g -> RegionGateways.coordinator(g).isLeader()).findFirst()
                .orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> runs(next) > runsBefore.get(next));
        for (RunningGateway g : survivors) {
            assertThat(RegionGateways.coordinator(g).lastRunAgeSeconds()).isLessThan(5);
        }
    }

    private static long version(RunningGateway gateway) {
        return gateway.context().getBean(CurrentShares.class).version();
    }

    private static long sharesVersionInDatabase() throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT shares_version FROM rebalancer_state")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
