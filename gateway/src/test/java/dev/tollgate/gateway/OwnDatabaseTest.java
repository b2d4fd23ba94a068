package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.spring.region.RegionCoordinator;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tollgate in a database of its own ({@code tollgate.datasource.*}) and a schema of the operator's
 * choice ({@code tollgate.datasource.schema}), beside an application whose {@code spring.datasource.*}
 * names another database: the migrations, the history table, the pool, the {@code LISTEN} connection,
 * the heartbeats and the region coordinator all work in that schema of that database, and the
 * application's database is left untouched.
 */
class OwnDatabaseTest {

    private static final String SCHEMA = "rate_limits";
    private static PostgresDatabase postgres;
    private static PostgresDatabase own;
    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() throws SQLException {
        postgres = PostgresServer.freshDatabase();
        own = PostgresServer.freshDatabase();
        redis = RedisServer.start();
        upstream = new TestUpstream();
        // The application's database is one fresh database (spring.datasource.*, as in
        // DatabaseGateways); Tollgate's is another one, in a schema that does not exist yet.
        Map<String, Object> p = RegionGateways.properties("eu", postgres, redis, upstream.uri());
        p.put("tollgate.datasource.url", ownUrl());
        p.put("tollgate.datasource.username", postgres.username());
        p.put("tollgate.datasource.password", postgres.password());
        p.put("tollgate.datasource.schema", SCHEMA);
        gateway = RunningGateway.start(p);
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(gateway, upstream, redis, own, postgres);
    }

    private static String ownUrl() {
        return own.jdbcUrl();
    }

    /** A session of an operator's: the database's default search_path, which does not name the schema. */
    private static Connection ownDatabase() throws SQLException {
        return DriverManager.getConnection(ownUrl(), postgres.username(), postgres.password());
    }

    private static List<String> tables(Connection c, String schema) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = '" + schema + "'")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        return tables;
    }

    private static long count(String sql) throws SQLException {
        try (Connection c = ownDatabase(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void theTablesAndTheirHistoryAreInTheNamedSchemaOfTollgatesOwnDatabase() throws SQLException {
        try (Connection own = ownDatabase()) {
            assertThat(tables(own, SCHEMA)).contains("rate_limit_rule", "api_key", "directory_change",
                    "gateway_instance", "region_share", "region_demand", "tollgate_schema_history");
            assertThat(tables(own, "public")).as("Tollgate's tables in public").isEmpty();
        }
        try (Connection application = postgres.connect()) {
            assertThat(tables(application, "public")).as("the application's database").isEmpty();
            assertThat(tables(application, SCHEMA)).isEmpty();
        }
    }

    @Test
    void theGatewayWorksFromThatSchema() throws SQLException {
        String key = RegionGateways.createKey(gateway, "acme");
        RegionGateways.putRule(gateway, "acme", "create-order", 4, 0.001);
        // Region eu enforces half of the rule: 2 requests, then 429.
        await().atMost(Duration.ofSeconds(10)).until(() ->
                gateway.send("POST", "/orders", key).headers().firstValue("X-RateLimit-Limit").orElse("").equals("2"));
        assertThat(count("SELECT count(*) FROM " + SCHEMA + ".rate_limit_rule WHERE tenant_id = 'acme'")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM " + SCHEMA + ".api_key WHERE tenant_id = 'acme'")).isEqualTo(1);

        // Heartbeats (the pool) and the region coordinator (a connection of its own) write there too.
        await().atMost(Duration.ofSeconds(15)).until(() ->
                count("SELECT count(*) FROM " + SCHEMA + ".gateway_instance") > 0
                        && count("SELECT count(*) FROM " + SCHEMA + ".region_reporter") > 0);
        RegionCoordinator coordinator = RegionGateways.coordinator(gateway);
        assertThat(coordinator.isConnected()).as(String.valueOf(coordinator.lastError())).isTrue();
    }

    @Test
    void aRuleWrittenByHandFromAnotherSearchPathReachesTheGateway() throws SQLException {
        String key = RegionGateways.createKey(gateway, "initech");
        try (Connection own = ownDatabase(); Statement s = own.createStatement()) {
            // The trigger functions find the change log in the schema, whatever this session's search_path;
            // the change notification wakes the gateway's LISTEN connection.
            s.execute("INSERT INTO " + SCHEMA + ".rate_limit_rule (tenant_id, route_id, capacity, refill_per_second)"
                    + " VALUES ('initech', 'create-order', 8, 0.001)");
        }
        assertThat(count("SELECT count(*) FROM " + SCHEMA + ".directory_change WHERE tenant_id = 'initech'"))
                .isPositive();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                gateway.send("POST", "/orders", key).headers().firstValue("X-RateLimit-Limit").orElse("").equals("4"));
    }
}
