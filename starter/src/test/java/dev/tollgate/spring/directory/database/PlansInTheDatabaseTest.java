package dev.tollgate.spring.directory.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.LimitPrecedence.Source;
import dev.tollgate.spring.directory.ApiKeys;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.DirectorySnapshot;
import dev.tollgate.spring.settings.UnverifiedKeyPolicy;
import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Plans in PostgreSQL (V8): a database of today's schema with data in it keeps every rule working once
 * migrated; plans and tenants' plans are loaded, followed through the change log, and a plan row the
 * gateway cannot read is skipped and reported, its tenants falling back to the default plan.
 */
class PlansInTheDatabaseTest {

    private static final RateLimitRule DEFAULT_RULE = new RateLimitRule(20, 10, 1, false, 2);
    private static final String FREE = "[{\"name\":\"rate\",\"scope\":\"each-route\",\"capacity\":20,\"refillPerSecond\":10},"
            + "{\"name\":\"day\",\"scope\":\"tenant\",\"quota\":10000,\"period\":\"day\"}]";

    private PostgresDatabase postgres;
    private DirectoryRepository repository;
    private final List<String> badRows = new ArrayList<>();

    @BeforeEach
    void database() {
        postgres = PostgresServer.freshDatabase();
        repository = new DirectoryRepository(
                new DriverManagerDataSource(postgres.jdbcUrl(), postgres.username(), postgres.password()));
    }

    @AfterEach
    void close() {
        postgres.close();
    }

    private void sql(String... statements) throws SQLException {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private DirectorySnapshot load() throws Exception {
        return new DirectoryLoader(repository, DEFAULT_RULE, "default", badRows::add, List.of(), () -> 0L)
                .loadAll();
    }

    private ChangeLogCatchUp catchUp() {
        return new ChangeLogCatchUp(repository, 100, badRows::add, List.of());
    }

    @Test
    void aDatabaseOfTodaysSchemaWithRulesKeysAndSharesKeepsEveryRuleOnceMigrated() throws Exception {
        Flyway.configure().dataSource(postgres.jdbcUrl(), postgres.username(), postgres.password())
                .locations("classpath:dev/tollgate/db/migration").table("tollgate_schema_history")
                .baselineOnMigrate(true).baselineVersion("0").target("7").load().migrate();
        String key = ApiKeys.generate();
        sql("INSERT INTO rate_limit_rule (tenant_id, route_id, capacity, refill_per_second, cost, shadow, shards) VALUES"
                        + " ('shop-a', 'create-order', 100, 50.5, 2, false, 4), ('shop-a', '*', 30, 3, 1, true, 1),"
                        + " ('shop-b', '*', 7, 0.125, 1, false, 1)",
                "INSERT INTO api_key (key_hash, tenant_id) VALUES ('" + ApiKeys.hash(key) + "', 'shop-a')",
                "INSERT INTO region_share (tenant_id, route_id, region, share_ppm) VALUES"
                        + " ('shop-a', 'create-order', 'eu', 600000), ('shop-a', 'create-order', 'us', 400000)");
        long changesBefore = count("directory_change");

        repository.migrate();

        DirectorySnapshot snapshot = load();
        assertThat(badRows).isEmpty();
        Directory directory = new Directory(snapshot, UnverifiedKeyPolicy.REJECT);
        assertThat(directory.lookup(key)).isEqualTo(TenantLookup.verified("shop-a"));
        for (String tenant : List.of("shop-a", "shop-b", "shop-c")) {
            for (String route : List.of("create-order", "list-orders")) {
                AppliedLimits applied = directory.limitsFor(tenant, route);
                assertThat(applied.singleBucket()).as("%s on %s", tenant, route)
                        .isEqualTo(directory.ruleFor(tenant, route));
            }
        }
        assertThat(directory.ruleFor("shop-a", "create-order")).isEqualTo(new RateLimitRule(100, 50.5, 2, false, 4));
        assertThat(directory.ruleFor("shop-a", "list-orders")).isEqualTo(new RateLimitRule(30, 3, 1, true, 1));
        assertThat(directory.ruleFor("shop-c", "list-orders")).isSameAs(DEFAULT_RULE);
        assertThat(count("region_share")).isEqualTo(2);
        assertThat(count("directory_change")).as("the old change log is kept").isEqualTo(changesBefore);

        // And the old kinds of change still flow through the widened change log.
        sql("UPDATE rate_limit_rule SET capacity = 8 WHERE tenant_id = 'shop-b'");
        DirectorySnapshot caughtUp = catchUp().apply(snapshot).orElseThrow();
        assertThat(caughtUp.limits().limitsFor("shop-b", "x").singleBucket().capacity()).isEqualTo(8);
    }

    @Test
    void plansAndTenantsPlansAreLoadedAndFollowedThroughTheChangeLog() throws Exception {
        repository.migrate();
        sql("INSERT INTO plan (name, limits) VALUES ('free', '" + FREE + "')",
                "INSERT INTO tenant_plan (tenant_id, plan) VALUES ('t1', 'free')");
        DirectorySnapshot snapshot = load();
        assertThat(names(snapshot, "t1")).containsExactly("rate@PLAN", "day@PLAN");
        assertThat(names(snapshot, "t2")).containsExactly("default@DEFAULT_PLAN");

        // One row changes the plan of every tenant on it; tenants move on and off plans.
        sql("UPDATE plan SET limits = '[{\"name\":\"rate\",\"scope\":\"each-route\",\"capacity\":40,\"refillPerSecond\":20}]'"
                        + " WHERE name = 'free'",
                "INSERT INTO tenant_plan (tenant_id, plan) VALUES ('t2', 'free')");
        DirectorySnapshot changed = catchUp().apply(snapshot).orElseThrow();
        assertThat(changed.limits().limitsFor("t1", "r").singleBucket()).isEqualTo(RateLimitRule.of(40, 20));
        assertThat(changed.limits().limitsFor("t2", "r").singleBucket()).isEqualTo(RateLimitRule.of(40, 20));

        // A plan named as tollgate.default-plan becomes every other tenant's plan.
        sql("DELETE FROM tenant_plan WHERE tenant_id = 't1'",
                "INSERT INTO plan (name, limits) VALUES ('default', '[{\"name\":\"day\",\"scope\":\"tenant\",\"quota\":5,\"period\":\"day\"}]')");
        DirectorySnapshot moved = catchUp().apply(changed).orElseThrow();
        assertThat(names(moved, "t1")).containsExactly("day@DEFAULT_PLAN");
        assertThat(names(moved, "t2")).containsExactly("rate@PLAN");
        assertThat(load().limits().limitsFor("t1", "r")).isEqualTo(moved.limits().limitsFor("t1", "r"));
        assertThat(badRows).isEmpty();
    }

    @Test
    void aPlanInUseCannotBeDeletedNorATenantPutOnAPlanThatDoesNotExist() throws Exception {
        repository.migrate();
        sql("INSERT INTO plan (name, limits) VALUES ('free', '" + FREE + "')",
                "INSERT INTO tenant_plan (tenant_id, plan) VALUES ('t1', 'free')");
        assertThatThrownBy(() -> sql("DELETE FROM plan WHERE name = 'free'")).hasMessageContaining("tenant_plan");
        assertThatThrownBy(() -> sql("INSERT INTO tenant_plan (tenant_id, plan) VALUES ('t2', 'gold')"))
                .hasMessageContaining("tenant_plan");
        assertThatThrownBy(() -> sql("INSERT INTO plan (name, limits) VALUES ('obj', '{}')")).hasMessageContaining("check");
    }

    @Test
    void aPlanRowTheAdminApiWouldRefuseIsSkippedAndReportedAndItsTenantsAreOnTheDefaultPlan() throws Exception {
        repository.migrate();
        sql("INSERT INTO plan (name, limits) VALUES ('free', '" + FREE + "'),"
                        + " ('broken', '[{\"name\":\"rate\",\"scope\":\"each-route\",\"capacity\":0,\"refillPerSecond\":1}]')",
                "INSERT INTO tenant_plan (tenant_id, plan) VALUES ('t1', 'broken'), ('t2', 'free')");
        DirectorySnapshot snapshot = load();
        assertThat(badRows).containsExactly("plan 'broken': limits[0].capacity must be between 1 and 1000000000,"
                + " was 0; its tenants are on the default plan");
        assertThat(names(snapshot, "t1")).containsExactly("default@DEFAULT_PLAN");
        assertThat(names(snapshot, "t2")).containsExactly("rate@PLAN", "day@PLAN");

        sql("UPDATE plan SET limits = '[{\"name\":\"rate\",\"scope\":\"each-route\",\"capacity\":0,\"refillPerSecond\":1}]'"
                + " WHERE name = 'free'");
        DirectorySnapshot caughtUp = catchUp().apply(snapshot).orElseThrow();
        assertThat(badRows).contains("plan 'free': limits[0].capacity must be between 1 and 1000000000, was 0;"
                + " its tenants are on the default plan");
        assertThat(names(caughtUp, "t2")).as("a plan that turns unreadable is dropped, not kept stale")
                .containsExactly("default@DEFAULT_PLAN");
        assertThat(caughtUp.limits().limitsFor("t2", "r").limits().get(0).source()).isEqualTo(Source.DEFAULT_PLAN);
    }

    private static List<String> names(DirectorySnapshot snapshot, String tenant) {
        return snapshot.limits().limitsFor(tenant, "r").limits().stream()
                .map(a -> a.limit().name() + "@" + a.source()).toList();
    }

    private long count(String table) throws SQLException {
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
