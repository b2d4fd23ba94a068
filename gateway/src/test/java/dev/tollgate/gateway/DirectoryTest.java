package dev.tollgate.gateway;

import static dev.tollgate.gateway.DatabaseGateways.ADMIN_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;


import com.jayway.jsonpath.JsonPath;
import dev.tollgate.core.RateLimitRule;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rules and API keys in PostgreSQL, managed through the admin API, enforced by two gateway
 * instances that share one Redis and one database.
 *
 * <p>A change reaches the instances through PostgreSQL's NOTIFY (within a second on a quiet
 * machine, docs/rules-and-keys.md); the only other way, the poll, runs every 60 s in these tests
 * ({@link DatabaseGateways}). So the tests wait for a change up to {@link #NOTIFIED}, far below the
 * poll and generous for a busy 2-core machine: a change seen in time came by notification.
 */
class DirectoryTest {

    /** Longest a change may take to reach both instances (see above). */
    private static final Duration NOTIFIED = Duration.ofSeconds(10);
    private static final Logger MEASURED = LoggerFactory.getLogger("measured");

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

    private static String createKey(String tenant) {
        HttpResponse<String> created = a.admin("POST", "/admin/tenants/" + tenant + "/keys",
                "{\"label\":\"test\"}", ADMIN_TOKEN);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return JsonPath.read(created.body(), "$.key");
    }

    private static HttpResponse<String> putRule(String tenant, String route, String json) {
        return a.admin("PUT", "/admin/rules/" + tenant + "/" + route, json, ADMIN_TOKEN);
    }

    private static RateLimitRule ruleSeenBy(RunningGateway gateway, String tenant, String route) {
        return gateway.context().getBean(Directory.class).ruleFor(tenant, route);
    }

    private static int ruleRows() throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM rate_limit_rule")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aRuleChangedThroughTheAdminApiIsEnforcedByBothInstancesOnTheNotification() {
        String key = createKey("fast-tenant");
        await().atMost(NOTIFIED).until(() -> b.send("POST", "/orders", key).statusCode() == 200);

        long start = System.nanoTime();
        HttpResponse<String> put = putRule("fast-tenant", "create-order", "{\"capacity\":1,\"refillPerSecond\":0.001}");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        RateLimitRule expected = RateLimitRule.of(1, 0.001);
        await().atMost(NOTIFIED).pollInterval(Duration.ofMillis(5)).until(() ->
                expected.equals(ruleSeenBy(a, "fast-tenant", "create-order"))
                        && expected.equals(ruleSeenBy(b, "fast-tenant", "create-order")));
        MEASURED.info("[directory] rule change seen by both instances after {} ms", (System.nanoTime() - start) / 1_000_000);

        // Enforced: the earlier request left 2 of the default 3; the new capacity 1 caps that at 1.
        assertThat(b.send("POST", "/orders", key).statusCode()).isEqualTo(200);
        assertThat(a.send("POST", "/orders", key).statusCode()).isEqualTo(429);
    }

    @Test
    void precedenceIsExactRouteThenTenantWideThenDefault() {
        String key = createKey("ranked");
        assertThat(putRule("ranked", "create-order", "{\"capacity\":1,\"refillPerSecond\":0.001}").statusCode()).isEqualTo(201);
        assertThat(putRule("ranked", "*", "{\"capacity\":2,\"refillPerSecond\":0.001}").statusCode()).isEqualTo(201);
        await().atMost(NOTIFIED).until(() -> ruleSeenBy(a, "ranked", "catalog").capacity() == 2);

        assertThat(a.send("POST", "/orders", key).headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(a.send("GET", "/catalog/x", key).headers().firstValue("X-RateLimit-Remaining")).hasValue("1");

        assertThat(a.admin("DELETE", "/admin/rules/ranked/*", null, ADMIN_TOKEN).statusCode()).isEqualTo(204);
        await().atMost(NOTIFIED).until(() -> ruleSeenBy(a, "ranked", "catalog").capacity() == 3);
        assertThat(ruleSeenBy(a, "ranked", "create-order").capacity()).isEqualTo(1);
    }

    @Test
    void badAdminInputIs400NamingTheFieldAndStoresNothing() throws Exception {
        int before = ruleRows();
        List<String[]> cases = List.of(
                new String[] {"/admin/rules/t1/r1", "{\"capacity\":0,\"refillPerSecond\":1}", "capacity"},
                new String[] {"/admin/rules/t1/r1", "{\"capacity\":2000000000,\"refillPerSecond\":1}", "capacity"},
                new String[] {"/admin/rules/t1/r1", "{\"refillPerSecond\":1}", "capacity"},
                new String[] {"/admin/rules/t1/r1", "{\"capacity\":5,\"refillPerSecond\":0}", "refillPerSecond"},
                new String[] {"/admin/rules/t1/r1", "{\"capacity\":5,\"refillPerSecond\":0.0005}", "refillPerSecond"},
                new String[] {"/admin/rules/t1/r1", "{\"capacity\":5,\"refillPerSecond\":1,\"cost\":6}", "cost"},
                new String[] {"/admin/rules/bad%20tenant/r1", "{\"capacity\":5,\"refillPerSecond\":1}", "tenant"},
                new String[] {"/admin/rules/" + "t".repeat(65) + "/r1", "{\"capacity\":5,\"refillPerSecond\":1}", "tenant"},
                new String[] {"/admin/rules/t1/r%7B1", "{\"capacity\":5,\"refillPerSecond\":1}", "route"},
                new String[] {"/admin/rules/t1/r1", "{\"capacity\":", "body"},
                new String[] {"/admin/rules/t1/r1", "{\"capacity\":\"many\",\"refillPerSecond\":1}", "capacity"});
        for (String[] c : cases) {
            HttpResponse<String> r = a.admin("PUT", c[0], c[1], ADMIN_TOKEN);
            assertThat(r.statusCode()).as("%s %s -> %s", c[0], c[1], r.body()).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(JsonPath.<String>read(r.body(), "$.field")).as(r.body()).isEqualTo(c[2]);
        }
        HttpResponse<String> badLabel = a.admin("POST", "/admin/tenants/t1/keys",
                "{\"label\":\"" + "x".repeat(201) + "\"}", ADMIN_TOKEN);
        assertThat(badLabel.statusCode()).isEqualTo(400);
        assertThat(JsonPath.<String>read(badLabel.body(), "$.field")).isEqualTo("label");
        assertThat(ruleRows()).isEqualTo(before);
        assertThat(a.admin("GET", "/admin/tenants/t1/keys", null, ADMIN_TOKEN).body()).isEqualTo("{\"keys\":[]}");
    }

    @Test
    void adminRequestsWithoutTheTokenAre401() {
        HttpResponse<String> none = a.admin("GET", "/admin/rules", null, null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).isPresent();
        assertThat(a.admin("GET", "/admin/rules", null, "wrong").statusCode()).isEqualTo(401);
        assertThat(a.admin("PUT", "/admin/rules/t/r", "{\"capacity\":1,\"refillPerSecond\":1}", "wrong").statusCode())
                .isEqualTo(401);
    }

    @Test
    void theAdminApiIsNotReachableThroughTheGatewayPort() {
        assertThat(a.send("GET", "/admin/rules", null).statusCode()).isEqualTo(404);
    }

    @Test
    void unknownKeysAre401AndRevokedKeysStopWorkingOnEveryInstanceOnTheNotification() {
        assertThat(a.send("POST", "/orders", "tg_not-a-real-key").statusCode()).isEqualTo(401);
        String key = createKey("revoked-tenant");
        await().atMost(NOTIFIED).until(() -> b.send("GET", "/catalog/1", key).statusCode() == 200);

        HttpResponse<String> keys = a.admin("GET", "/admin/tenants/revoked-tenant/keys", null, ADMIN_TOKEN);
        assertThat(keys.body()).doesNotContain(key).doesNotContain(dev.tollgate.spring.directory.ApiKeys.hash(key));
        int id = JsonPath.read(keys.body(), "$.keys[0].id");

        assertThat(a.admin("DELETE", "/admin/keys/" + id, null, ADMIN_TOKEN).statusCode()).isEqualTo(200);
        await().atMost(NOTIFIED).pollInterval(Duration.ofMillis(10)).until(() ->
                a.send("GET", "/catalog/1", key).statusCode() == 401 && b.send("GET", "/catalog/1", key).statusCode() == 401);
        HttpResponse<String> revoked = b.send("GET", "/catalog/1", key);
        assertThat(revoked.body()).contains("urn:tollgate:problem:unknown-api-key");
        assertThat(a.admin("DELETE", "/admin/keys/999999", null, ADMIN_TOKEN).statusCode()).isEqualTo(404);
    }

    @Test
    void theBackendLearnsTheTenantFromTheGatewayAndNeverSeesTheKey() {
        String key = createKey("forwarded");
        await().atMost(NOTIFIED).until(() -> a.send("GET", "/catalog/1", key).statusCode() == 200);
        TestUpstream.Received plain = upstream.last();
        assertThat(plain.header("X-Api-Key")).isEmpty();
        assertThat(plain.header("X-Tenant-Id")).containsExactly("forwarded");

        // A client cannot name a tenant: whatever it sends in X-Tenant-Id is replaced, in any spelling.
        RawHttp.Response spoofed;
        try (RawHttp http = RawHttp.connect(a.port(), 10_000)) {
            http.write("GET /catalog/2 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + key + "\r\n"
                    + "X-Tenant-Id: shop-a\r\nx-tenant-id: shop-b\r\nX-TENANT-ID: shop-c\r\nConnection: close\r\n\r\n");
            spoofed = http.readResponse();
        }
        assertThat(spoofed.status()).isEqualTo(200);
        TestUpstream.Received received = upstream.last();
        assertThat(received.target()).isEqualTo("/catalog/2");
        assertThat(received.header("X-Tenant-Id")).containsExactly("forwarded");
        assertThat(received.header("X-Api-Key")).isEmpty();
    }

    @Test
    void rulesArePagedAndFilteredByTenant() {
        for (int i = 0; i < 5; i++) {
            putRule("paged", "route-" + i, "{\"capacity\":10,\"refillPerSecond\":2.5,\"cost\":2}");
        }
        HttpResponse<String> page = a.admin("GET", "/admin/rules?tenant=paged&page=1&size=2", null, ADMIN_TOKEN);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<Integer>read(page.body(), "$.total")).isEqualTo(5);
        assertThat(JsonPath.<List<String>>read(page.body(), "$.rules[*].route")).containsExactly("route-2", "route-3");
        HttpResponse<String> one = a.admin("GET", "/admin/rules/paged/route-4", null, ADMIN_TOKEN);
        assertThat(JsonPath.<Double>read(one.body(), "$.refillPerSecond")).isEqualTo(2.5);
        assertThat(JsonPath.<Integer>read(one.body(), "$.cost")).isEqualTo(2);
        assertThat(a.admin("GET", "/admin/rules/paged/none", null, ADMIN_TOKEN).statusCode()).isEqualTo(404);
        assertThat(putRule("paged", "route-4", "{\"capacity\":11,\"refillPerSecond\":1}").statusCode()).isEqualTo(200);
    }

    @Test
    void aMalformedRowIsSkippedLoggedAndCountedWithoutTakingTheRestDown() throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            // Allowed by the table, refused by Tollgate (capacity above 10^9).
            s.executeUpdate("INSERT INTO rate_limit_rule (tenant_id, route_id, capacity, refill_per_second)"
                    + " VALUES ('odd', 'create-order', 2000000000, 1), ('even', 'create-order', 7, 1)");
        }
        await().atMost(NOTIFIED).until(() -> ruleSeenBy(b, "even", "create-order").capacity() == 7);
        assertThat(ruleSeenBy(b, "odd", "create-order").capacity()).isEqualTo(3); // the default rule
        String prometheus = b.management("/actuator/prometheus").body();
        assertThat(prometheus).containsPattern("tollgate_directory_rejected_rows_total [1-9]");
    }

    @Test
    void idsWrittenWithSqlThatTheAdminApiWouldRefuseAreSkippedLoggedAndCounted() throws Exception {
        String crlfKey = "tg_crlf-tenant-key";
        String unicodeKey = "tg_unicode-tenant-key";
        String fineKey = "tg_fine-tenant-key";
        double before = rejectedRows(b);
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO rate_limit_rule (tenant_id, route_id, capacity, refill_per_second) VALUES"
                    + " (E'forged\\r\\nINFO line', 'create-order', 9, 1), ('shop\u012da', 'create-order', 9, 1),"
                    + " ('spaced', 'a route', 9, 1), ('sql-fine', 'create-order', 8, 1)");
            s.executeUpdate("INSERT INTO api_key (key_hash, tenant_id, label) VALUES"
                    + " ('" + dev.tollgate.spring.directory.ApiKeys.hash(crlfKey) + "', E'evil\\r\\nX-Injected: 1', 'sql'),"
                    + " ('" + dev.tollgate.spring.directory.ApiKeys.hash(unicodeKey) + "', 'shop\u012da', 'sql'),"
                    + " ('" + dev.tollgate.spring.directory.ApiKeys.hash(fineKey) + "', 'sql-fine', 'sql')");
        }
        await().atMost(NOTIFIED).until(() -> ruleSeenBy(b, "sql-fine", "create-order").capacity() == 8
                && b.send("GET", "/catalog/sql", fineKey).statusCode() == 200);
        assertThat(upstream.last().header("X-Tenant-Id")).containsExactly("sql-fine");

        // Never loaded: the keys are unknown (401, not a 500 on every request), the rules are not there.
        for (String key : List.of(crlfKey, unicodeKey)) {
            HttpResponse<String> refused = b.send("GET", "/catalog/sql", key);
            assertThat(refused.statusCode()).as(key).isEqualTo(401);
            assertThat(refused.body()).contains("urn:tollgate:problem:unknown-api-key");
        }
        assertThat(ruleSeenBy(b, "forged\r\nINFO line", "create-order").capacity()).isEqualTo(3);
        assertThat(ruleSeenBy(b, "shop\u012da", "create-order").capacity()).isEqualTo(3);
        assertThat(ruleSeenBy(b, "spaced", "a route").capacity()).isEqualTo(3);
        assertThat(rejectedRows(b) - before).isGreaterThanOrEqualTo(5);

        // A full load (as at start, and hourly) skips them too.
        List<String> skipped = new java.util.ArrayList<>();
        dev.tollgate.spring.directory.database.DirectoryRepository.FullLoad load =
                b.context().getBean(dev.tollgate.spring.directory.database.DirectoryRepository.class).loadAll(skipped::add);
        assertThat(load.tenantByKey()).containsEntry(dev.tollgate.spring.directory.ApiKeys.hash(fineKey), "sql-fine")
                .doesNotContainKeys(dev.tollgate.spring.directory.ApiKeys.hash(crlfKey),
                        dev.tollgate.spring.directory.ApiKeys.hash(unicodeKey));
        assertThat(load.rules()).noneMatch(rule -> rule.tenant().startsWith("forged") || rule.tenant().startsWith("shop\u012d")
                || rule.route().equals("a route"));
        assertThat(skipped).hasSizeGreaterThanOrEqualTo(5);
    }

    private static double rejectedRows(RunningGateway gateway) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^tollgate_directory_rejected_rows_total (\\S+)$")
                .matcher(gateway.management("/actuator/prometheus").body());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
