package dev.tollgate.gateway;

import static dev.tollgate.gateway.DatabaseGateways.ADMIN_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans through the admin API, in PostgreSQL, seen by two gateway instances sharing one database:
 * the admin API's fixed contract ({@code /admin/plans}, {@code /admin/tenants/{tenant}/plan},
 * {@code /admin/tenants/{tenant}/limits}), its refusals, and a plan change reaching both instances on
 * the notification (the poll runs every 60 s here: a change seen within {@link #NOTIFIED} came by
 * notification; the time measured is logged).
 */
class PlansAdminTest {

    private static final Duration NOTIFIED = Duration.ofSeconds(10);
    private static final Logger MEASURED = LoggerFactory.getLogger("measured");
    private static final String FREE = "{\"limits\":["
            + "{\"name\":\"rate\",\"scope\":\"each-route\",\"capacity\":20,\"refillPerSecond\":10},"
            + "{\"name\":\"day\",\"scope\":\"tenant\",\"quota\":10000,\"period\":\"day\"}]}";

    private static PostgresDatabase postgres;
    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway a;
    private static RunningGateway b;

    @BeforeAll
    static void start() {
        postgres = PostgresServer.freshDatabase();
        redis = RedisServer.start();
        upstream = new TestUpstream();
        a = RunningGateway.start(DatabaseGateways.properties(postgres, redis.port(), upstream.uri()));
        b = RunningGateway.start(DatabaseGateways.properties(postgres, redis.port(), upstream.uri()));
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(b, a, upstream, redis, postgres);
    }

    private static HttpResponse<String> admin(String method, String path, String body) {
        return a.admin(method, path, body, ADMIN_TOKEN);
    }

    private static AppliedLimits seenBy(RunningGateway gateway, String tenant, String route) {
        return gateway.context().getBean(LimitBook.class).limitsFor(tenant, route);
    }

    @Test
    void aPlanIsCreatedReplacedListedAndReadBack() {
        HttpResponse<String> created = admin("PUT", "/admin/plans/crud", FREE);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(JsonPath.<String>read(created.body(), "$.name")).isEqualTo("crud");
        assertThat(JsonPath.<List<Map<String, Object>>>read(created.body(), "$.limits")).hasSize(2);
        assertThat(JsonPath.<String>read(created.body(), "$.limits[1].period")).isEqualTo("day");
        assertThat(JsonPath.<Integer>read(created.body(), "$.tenants")).isZero();

        HttpResponse<String> replaced = admin("PUT", "/admin/plans/crud",
                "{\"limits\":[{\"name\":\"rate\",\"scope\":\"route\",\"route\":\"create-order\",\"capacity\":5,\"refillPerSecond\":0.5,\"shadow\":true}]}");
        assertThat(replaced.statusCode()).as(replaced.body()).isEqualTo(200);
        HttpResponse<String> read = admin("GET", "/admin/plans/crud", null);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(read.body(), "$.limits[0].route")).isEqualTo("create-order");
        assertThat(JsonPath.<Double>read(read.body(), "$.limits[0].refillPerSecond")).isEqualTo(0.5);
        assertThat(JsonPath.<Boolean>read(read.body(), "$.limits[0].shadow")).isTrue();
        assertThat(JsonPath.<List<String>>read(admin("GET", "/admin/plans", null).body(), "$.plans[*].name"))
                .contains("crud");

        assertThat(admin("DELETE", "/admin/plans/crud", null).statusCode()).isEqualTo(204);
        assertThat(admin("GET", "/admin/plans/crud", null).statusCode()).isEqualTo(404);
        assertThat(admin("DELETE", "/admin/plans/crud", null).statusCode()).isEqualTo(404);
    }

    @Test
    void aPlanChangeReachesBothInstancesOnTheNotificationAndAPlanInUseCannotBeDeleted() {
        assertThat(admin("PUT", "/admin/plans/tier", FREE).statusCode()).isEqualTo(201);
        HttpResponse<String> on = admin("PUT", "/admin/tenants/tiered/plan", "{\"plan\":\"tier\"}");
        assertThat(on.statusCode()).as(on.body()).isEqualTo(201);
        assertThat(admin("PUT", "/admin/tenants/tiered/plan", "{\"plan\":\"tier\"}").statusCode()).isEqualTo(200);
        await().atMost(NOTIFIED).until(() -> seenBy(b, "tiered", "catalog").limits().size() == 2);

        long start = System.nanoTime();
        assertThat(admin("PUT", "/admin/plans/tier",
                "{\"limits\":[{\"name\":\"rate\",\"scope\":\"each-route\",\"capacity\":7,\"refillPerSecond\":1}]}")
                .statusCode()).isEqualTo(200);
        RateLimitRule expected = RateLimitRule.of(7, 1);
        await().atMost(NOTIFIED).pollInterval(Duration.ofMillis(5)).until(() ->
                expected.equals(seenBy(a, "tiered", "catalog").singleBucket())
                        && expected.equals(seenBy(b, "tiered", "catalog").singleBucket()));
        MEASURED.info("[directory] plan change seen by both instances after {} ms", (System.nanoTime() - start) / 1_000_000);

        HttpResponse<String> inUse = admin("DELETE", "/admin/plans/tier", null);
        assertThat(inUse.statusCode()).as(inUse.body()).isEqualTo(409);
        assertThat(inUse.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(JsonPath.<String>read(inUse.body(), "$.type")).isEqualTo("urn:tollgate:problem:plan-in-use");

        assertThat(admin("DELETE", "/admin/tenants/tiered/plan", null).statusCode()).isEqualTo(204);
        assertThat(admin("DELETE", "/admin/tenants/tiered/plan", null).statusCode()).isEqualTo(404);
        await().atMost(NOTIFIED).until(() -> seenBy(b, "tiered", "catalog").singleBucket()
                .equals(b.context().getBean(Directory.class).ruleFor("tiered", "catalog")));
        assertThat(admin("DELETE", "/admin/plans/tier", null).statusCode()).isEqualTo(204);
    }

    @Test
    void theLimitsOfATenantOnARouteSayWhereEachComesFrom() {
        assertThat(admin("PUT", "/admin/plans/shop", FREE).statusCode()).isEqualTo(201);
        assertThat(admin("PUT", "/admin/tenants/shop-x/plan", "{\"plan\":\"shop\"}").statusCode()).isEqualTo(201);
        assertThat(admin("PUT", "/admin/rules/shop-x/create-order", "{\"capacity\":200,\"refillPerSecond\":100}")
                .statusCode()).isEqualTo(201);
        await().atMost(NOTIFIED).until(() -> seenBy(a, "shop-x", "create-order").limits().size() == 2
                && seenBy(a, "shop-x", "create-order").limits().get(0).limit().name().equals("rule"));

        String onOrders = admin("GET", "/admin/tenants/shop-x/limits?route=create-order", null).body();
        assertThat(JsonPath.<String>read(onOrders, "$.plan")).isEqualTo("shop");
        assertThat(JsonPath.<Boolean>read(onOrders, "$.singleBucket")).isFalse();
        assertThat(JsonPath.<List<String>>read(onOrders, "$.limits[*].source")).containsExactly("tenant-rule", "plan");
        assertThat(JsonPath.<List<String>>read(onOrders, "$.limits[*].name")).containsExactly("rule", "day");
        assertThat(JsonPath.<Integer>read(onOrders, "$.limits[0].capacity")).isEqualTo(200);
        assertThat(JsonPath.<String>read(onOrders, "$.limits[1].plan")).isEqualTo("shop");

        String elsewhere = admin("GET", "/admin/tenants/nobody/limits?route=catalog", null).body();
        assertThat(JsonPath.<Boolean>read(elsewhere, "$.onDefaultPlan")).isTrue();
        assertThat(JsonPath.<Boolean>read(elsewhere, "$.singleBucket")).isTrue();
        assertThat(JsonPath.<List<String>>read(elsewhere, "$.limits[*].source")).containsExactly("default");
        assertThat(JsonPath.<String>read(elsewhere, "$.limits[0].setting")).isEqualTo("tollgate.default-rule");

        HttpResponse<String> noRoute = admin("GET", "/admin/tenants/nobody/limits", null);
        assertThat(noRoute.statusCode()).isEqualTo(400);
        assertThat(JsonPath.<String>read(noRoute.body(), "$.field")).isEqualTo("route");
    }

    @Test
    void badPlanInputIs400NamingTheFieldAndStoresNothing() throws Exception {
        int before = planRows();
        List<String[]> cases = List.of(
                new String[] {"/admin/plans/p1", "{\"limits\":[{\"name\":\"r\",\"scope\":\"tenant\",\"capacity\":0,\"refillPerSecond\":1}]}", "limits[0].capacity"},
                new String[] {"/admin/plans/p1", "{\"limits\":[{\"name\":\"r\",\"scope\":\"tenant\",\"capacity\":5,\"refillPerSecond\":1,\"quota\":5,\"period\":\"day\"}]}", "limits[0].capacity"},
                new String[] {"/admin/plans/p1", "{\"limits\":[{\"name\":\"r\",\"scope\":\"tenant\",\"quota\":5,\"period\":\"week\"}]}", "limits[0].period"},
                new String[] {"/admin/plans/p1", "{\"limits\":[{\"name\":\"r\",\"scope\":\"tenant\",\"quota\":5,\"period\":\"day\",\"colour\":1}]}", "limits[0].colour"},
                new String[] {"/admin/plans/p1", "{\"limits\":[{\"name\":\"r\",\"scope\":\"tenant\",\"quota\":5,\"period\":\"day\"},"
                        + "{\"name\":\"r\",\"scope\":\"each-route\",\"quota\":5,\"period\":\"day\"}]}", "limits"},
                new String[] {"/admin/plans/p1", "{\"limits\":{}}", "limits"},
                new String[] {"/admin/plans/p1", "{}", "limits"},
                new String[] {"/admin/plans/p1", "{\"limits\":[],\"extra\":1}", "extra"},
                new String[] {"/admin/plans/-bad", "{\"limits\":[]}", "plan"},
                new String[] {"/admin/tenants/t1/plan", "{\"plan\":\"no-such-plan\"}", "plan"},
                new String[] {"/admin/tenants/t1/plan", "{}", "plan"},
                new String[] {"/admin/tenants/bad%20tenant/plan", "{\"plan\":\"x\"}", "tenant"});
        for (String[] c : cases) {
            HttpResponse<String> r = admin("PUT", c[0], c[1]);
            assertThat(r.statusCode()).as("%s %s -> %s", c[0], c[1], r.body()).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(JsonPath.<String>read(r.body(), "$.field")).as(r.body()).isEqualTo(c[2]);
        }
        assertThat(planRows()).isEqualTo(before);
        assertThat(admin("GET", "/admin/plans", null).statusCode()).isEqualTo(200);
        assertThat(a.admin("GET", "/admin/plans", null, "wrong").statusCode()).isEqualTo(401);
        assertThat(a.admin("PUT", "/admin/plans/x", "{\"limits\":[]}", null).statusCode()).isEqualTo(401);
    }

    private static int planRows() throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM plan) + (SELECT count(*) FROM tenant_plan)")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
