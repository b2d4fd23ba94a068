package dev.tollgate.gateway;

import static dev.tollgate.gateway.DatabaseGateways.ADMIN_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.core.region.RegionShares;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two regions on one machine: a redis-server each, one PostgreSQL, a gateway in each region, and the
 * rebalancer (every second here) moving each limit's shares to where its traffic is.
 */
@MeasuresWaits
class MultiRegionTest {

    private static final int EU = 0;
    private static final int US = 1;
    private static final Logger MEASURED = LoggerFactory.getLogger("measured");
    /** 4 requests of 5 to eu, 1 to us. */
    private static final int[] EIGHTY_TWENTY = {EU, EU, EU, EU, US};

    private static PostgresDatabase postgres;
    private static RedisServer euRedis;
    private static RedisServer usRedis;
    private static TestUpstream upstream;
    private static RunningGateway eu;
    private static RunningGateway us;

    @BeforeAll
    static void start() {
        postgres = PostgresServer.freshDatabase();
        euRedis = RedisServer.start();
        usRedis = RedisServer.start();
        upstream = new TestUpstream();
        eu = RunningGateway.start(RegionGateways.properties("eu", postgres, euRedis, upstream.uri()));
        us = RunningGateway.start(RegionGateways.properties("us", postgres, usRedis, upstream.uri()));
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(us, eu, upstream, usRedis, euRedis, postgres);
    }

    @Test
    void aTenantOverItsLimitWithMostOfItsTrafficInEuGetsMostOfItsLimitThere() throws Exception {
        RegionGateways.putRule(eu, "skewed", "create-order", 20, 20);
        String key = RegionGateways.createKey(eu, "skewed");
        await().atMost(Duration.ofSeconds(5)).until(() -> us.send("POST", "/orders", key).statusCode() != 401);

        // 40 requests/s, twice the limit of 20/s: 32/s in eu, 8/s in us.
        try (GatewayLoad load = GatewayLoad.paced(List.of(eu, us), EIGHTY_TWENTY, 40, "POST", "/orders", key)) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() ->
                    Math.abs(RegionGateways.shares(eu, "skewed", "create-order").ppm("eu") - 800_000) <= 50_000
                            && Math.abs(RegionGateways.shares(us, "skewed", "create-order").ppm("eu") - 800_000) <= 50_000);
            long moved = load.elapsedMillis();

            // Before: 50/50 (each region's bucket holds 10 of the 20 tokens): eu limited while us has spare.
            long euRejectedBefore = load.count(a -> a.gateway() == EU && a.limit().equals("10") && a.status() == 429);
            long usBefore = load.count(a -> a.gateway() == US && a.limit().equals("10"));
            long usRejectedBefore = load.count(a -> a.gateway() == US && a.limit().equals("10") && a.status() == 429);
            String beforeMove = String.format("shares moved after %d ms; before: eu rejected %d, us answered %d, rejected %d",
                    moved, euRejectedBefore, usBefore, usRejectedBefore);
            MEASURED.info("[regions] {}", beforeMove);
            assertThat(euRejectedBefore).as("eu limited at its half; " + beforeMove).isGreaterThan(0);
            assertThat(usBefore).as("us answered at its half; " + beforeMove).isGreaterThan(0);
            assertThat(usRejectedBefore).as("us had spare; " + beforeMove).isZero();

            // After: shares within ±0.05 of 0.8/0.2, and the tenant's total admitted rate within 5 % of 20/s.
            // Steady state: each region's bucket drained at its new rate (eu is offered 32/s for 16/s,
            // us 8/s for 4/s), which a request rejected there after the move shows.
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() ->
                    load.count(a -> a.gateway() == EU && a.sentMillis() > moved && a.status() == 429) > 0
                            && load.count(a -> a.gateway() == US && a.sentMillis() > moved && a.status() == 429) > 0);
            long from = load.elapsedMillis();
            // A measurement window in real time, the subject here: the buckets refill on the Redis
            // clock, which a test cannot move. 7.5 s: the error at its two edges is a request or two
            // per region, under 0.5 req/s of the 1 req/s allowed below.
            Thread.sleep(7_500);
            long to = load.elapsedMillis();
            RegionShares euView = RegionGateways.shares(eu, "skewed", "create-order");
            RegionShares usView = RegionGateways.shares(us, "skewed", "create-order");
            String shares = "eu's view " + euView + ", us's view " + usView;
            assertThat(euView.fractions().get("eu")).as(shares).isCloseTo(0.8, within(0.05));
            assertThat(euView.fractions().get("us")).as(shares).isCloseTo(0.2, within(0.05));
            assertThat(usView).isEqualTo(euView);
            long admitted = load.count(a -> a.sentMillis() >= from && a.sentMillis() < to && a.status() == 200);
            double rate = admitted * 1000.0 / (to - from);
            String after = String.format("after: shares %s, admitted %.2f/s of 20/s over %d ms", euView, rate, to - from);
            MEASURED.info("[regions] {}", after);
            // Within 5 %: the buckets are empty when the window opens (above), so at most the refill
            // of the window is admitted; the load is open-loop at twice the rule, paced at a fixed rate that
            // catches up after a stall, and answers are counted by when they were sent.
            assertThat(rate).as(after).isCloseTo(20, within(1.0));
        }

        HttpResponse<String> view = eu.admin("GET", "/admin/rules/skewed/create-order", null, ADMIN_TOKEN);
        assertThat(JsonPath.<Double>read(view.body(), "$.regionShares.eu")).isCloseTo(0.8, within(0.05));
        assertThat(JsonPath.<Double>read(view.body(), "$.regionShares.us")).isCloseTo(0.2, within(0.05));

        // A rule changed while its shares are moved keeps them: each region enforces the new limit × its share.
        RegionShares before = RegionGateways.shares(eu, "skewed", "create-order");
        RegionGateways.putRule(eu, "skewed", "create-order", 1000, 20);
        long euCapacity = 1000L * before.ppm("eu") / 1_000_000;
        long usCapacity = 1000L * before.ppm("us") / 1_000_000;
        await().atMost(Duration.ofSeconds(5)).until(() ->
                eu.send("POST", "/orders", key).headers().firstValue("X-RateLimit-Limit").orElse("")
                        .equals(Long.toString(euCapacity))
                        && us.send("POST", "/orders", key).headers().firstValue("X-RateLimit-Limit").orElse("")
                        .equals(Long.toString(usCapacity)));
        assertThat(RegionGateways.shares(eu, "skewed", "create-order")).isEqualTo(before);
    }

    @Test
    void aTenantActiveInOneRegionOnlyEndsWithAllButTheMinimumShareThere() {
        RegionGateways.putRule(eu, "solo", "*", 20, 20); // every route of the tenant: a bucket per route
        String key = RegionGateways.createKey(eu, "solo");
        try (GatewayLoad load = GatewayLoad.paced(List.of(eu), new int[] {0}, 25, "POST", "/orders", key)) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() ->
                    RegionGateways.shares(us, "solo", "create-order").ppm("eu") >= 900_000);
            // Four more runs: it never goes past 1 − min-share (0.95).
            await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).pollInterval(Duration.ofMillis(50))
                    .until(() -> RegionGateways.shares(eu, "solo", "create-order").ppm("eu") <= 950_000);
            assertThat(RegionGateways.shares(eu, "solo", "create-order").ppm("eu")).isBetween(900_000, 950_000);
            assertThat(RegionGateways.shares(eu, "solo", "create-order").ppm("us")).isGreaterThanOrEqualTo(50_000);
            assertThat(load.count(a -> a.status() == 200)).isGreaterThan(0);
        }
        HttpResponse<String> view = us.admin("GET", "/admin/rules/solo/*", null, ADMIN_TOKEN);
        assertThat(JsonPath.<Double>read(view.body(), "$.regionShares.eu")).as("no bucket is named *").isEqualTo(0.5);
        assertThat(JsonPath.<Double>read(view.body(), "$.regionSharesByRoute.create-order.eu")).isBetween(0.9, 0.95);
    }

    @Test
    void eachRegionCountsOnlyItsOwnInstancesAndReportsItsRoleInHealth() throws Exception {
        assertThat(eu.context().getBean(LiveInstances.class).count()).isEqualTo(1);
        assertThat(us.context().getBean(LiveInstances.class).count()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                RegionGateways.coordinator(eu).isLeader() ^ RegionGateways.coordinator(us).isLeader());

        RunningGateway leader = RegionGateways.coordinator(eu).isLeader() ? eu : us;
        String health = leader.management("/actuator/health/region").body();
        assertThat(health).contains("\"status\":\"UP\"").contains("\"rebalancer\":\"leader\"")
                .contains("\"defaultShares\":{\"eu\":0.5,\"us\":0.5}");
        String prometheus = leader.management("/actuator/prometheus").body();
        assertThat(prometheus).contains("tollgate_rebalancer_runs_total{outcome=\"done\"}")
                .contains("tollgate_rebalancer_rules_moved_total").contains("tollgate_rebalancer_duration_seconds")
                .contains("tollgate_rebalancer_last_run_age_seconds").contains("tollgate_rebalancer_leader 1.0");
        RunningGateway follower = leader == eu ? us : eu;
        assertThat(follower.management("/actuator/health/region").body()).contains("\"rebalancer\":\"follower\"");
        assertThat(follower.management("/actuator/prometheus").body()).contains("tollgate_rebalancer_leader 0.0");
    }
}
