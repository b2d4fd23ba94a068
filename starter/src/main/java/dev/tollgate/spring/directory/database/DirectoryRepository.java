package dev.tollgate.spring.directory.database;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.InvalidRuleException;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.core.limits.Plan;
import dev.tollgate.spring.directory.Ids;
import dev.tollgate.spring.plans.LimitDocument;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Every SQL statement of the rules, plans and keys: the loads and change reads of the refresher, and the
 * writes of the admin API. Blocking JDBC: never call it on the request path or an event-loop thread.
 */
public final class DirectoryRepository {

    private static final int FETCH_SIZE = 10_000;

    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private final String schema;

    public DirectoryRepository(DataSource dataSource) {
        this(dataSource, null);
    }

    /**
     * @param schema the schema the tables live in (the migrations create it), or {@code null} for the
     *               connections' default; the data source's connections must work in it too
     */
    public DirectoryRepository(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        this.schema = schema;
    }

    /**
     * Applies the Flyway migrations under {@code classpath:dev/tollgate/db/migration}, recorded in a
     * history table of their own ({@code tollgate_schema_history}): an application that runs its own
     * Flyway migrations on the same database keeps them apart from ours. With a schema, the tables
     * and the history table go there, and the schema is created if missing.
     */
    public void migrate() {
        FluentConfiguration flyway = Flyway.configure().dataSource(dataSource);
        if (schema != null) {
            flyway.schemas(schema);
        }
        flyway.locations("classpath:dev/tollgate/db/migration")
                .table("tollgate_schema_history")
                // A database that already holds other tables (an application's own) is not an error.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
    }

    /** Everything, read in one consistent snapshot of the database. */
    public record FullLoad(List<ScopedRule> rules, List<Plan> plans, Map<String, String> tenantPlans,
                           Map<String, String> tenantByKey, long cursor) {
    }

    /**
     * Reads all rules, plans, tenants' plans and active keys in one repeatable-read transaction, with
     * the change-log position they reflect. A row that breaks a rule's or a limit's constraints
     * (possible only if someone wrote to the table around the admin API) is skipped and reported to
     * {@code badRow}.
     */
    public FullLoad loadAll(Consumer<String> badRow) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setReadOnly(true);
            try {
                long cursor;
                try (PreparedStatement s = c.prepareStatement("SELECT coalesce(max(id), 0) FROM directory_change");
                     ResultSet rs = s.executeQuery()) {
                    rs.next();
                    cursor = rs.getLong(1);
                }
                List<ScopedRule> rules = new ArrayList<>();
                try (PreparedStatement s = c.prepareStatement(
                        "SELECT tenant_id, route_id, capacity, refill_per_second, cost, shadow, shards FROM rate_limit_rule")) {
                    s.setFetchSize(FETCH_SIZE);
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            ScopedRule rule = scopedRule(rs, badRow);
                            if (rule != null) {
                                rules.add(rule);
                            }
                        }
                    }
                }
                List<Plan> plans = new ArrayList<>();
                try (PreparedStatement s = c.prepareStatement("SELECT name, limits::text FROM plan");
                     ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        Plan plan = plan(rs, badRow);
                        if (plan != null) {
                            plans.add(plan);
                        }
                    }
                }
                Map<String, String> tenantPlans = new HashMap<>();
                try (PreparedStatement s = c.prepareStatement("SELECT tenant_id, plan FROM tenant_plan")) {
                    s.setFetchSize(FETCH_SIZE);
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            String tenant = planTenant(rs, badRow);
                            if (tenant != null) {
                                tenantPlans.put(tenant, rs.getString(2));
                            }
                        }
                    }
                }
                Map<String, String> keys = new HashMap<>();
                try (PreparedStatement s = c.prepareStatement(
                        "SELECT key_hash, tenant_id FROM api_key WHERE revoked_at IS NULL")) {
                    s.setFetchSize(FETCH_SIZE);
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            String tenant = keyTenant(rs, badRow);
                            if (tenant != null) {
                                keys.put(rs.getString(1), tenant);
                            }
                        }
                    }
                }
                c.commit();
                return new FullLoad(rules, plans, tenantPlans, keys, cursor);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** Change-log rows with an id above {@code afterId}, oldest first. */
    public List<DirectoryChange> changesAfter(long afterId) {
        return jdbc.query("SELECT id, kind, tenant_id, route_id, key_hash, plan_name FROM directory_change"
                        + " WHERE id > ? ORDER BY id",
                (rs, i) -> new DirectoryChange(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getString(6)),
                afterId);
    }

    /** The smallest id still in the change log, or 0 if it is empty. */
    public long oldestChangeId() {
        Long id = jdbc.queryForObject("SELECT coalesce(min(id), 0) FROM directory_change", Long.class);
        return id == null ? 0 : id;
    }

    /** The current rule of each scope: present, or empty if the scope has no rule (any more). */
    public Map<RuleScope, Optional<RateLimitRule>> currentRules(Set<RuleScope> scopes, Consumer<String> badRow) {
        Map<RuleScope, Optional<RateLimitRule>> current = new HashMap<>();
        for (RuleScope scope : scopes) {
            current.put(scope, Optional.empty());
        }
        if (scopes.isEmpty()) {
            return current;
        }
        String[] tenants = scopes.stream().map(RuleScope::tenant).toArray(String[]::new);
        String[] routes = scopes.stream().map(RuleScope::route).toArray(String[]::new);
        jdbc.query(con -> {
            PreparedStatement s = con.prepareStatement(
                    "SELECT r.tenant_id, r.route_id, r.capacity, r.refill_per_second, r.cost, r.shadow, r.shards FROM rate_limit_rule r"
                            + " JOIN unnest(?::varchar[], ?::varchar[]) AS wanted(tenant_id, route_id)"
                            + " ON r.tenant_id = wanted.tenant_id AND r.route_id = wanted.route_id");
            s.setArray(1, con.createArrayOf("varchar", tenants));
            s.setArray(2, con.createArrayOf("varchar", routes));
            return s;
        }, rs -> {
            ScopedRule rule = scopedRule(rs, badRow);
            if (rule != null) {
                current.put(new RuleScope(rule.tenant(), rule.route()), Optional.of(rule.rule()));
            }
        });
        return current;
    }

    /**
     * The tenant of each key hash: present while the key is active, empty once revoked or deleted, or
     * if its row names a tenant id the admin API would refuse (reported to {@code badRow}).
     */
    public Map<String, Optional<String>> currentKeys(Set<String> keyHashes, Consumer<String> badRow) {
        Map<String, Optional<String>> current = new HashMap<>();
        for (String hash : keyHashes) {
            current.put(hash, Optional.empty());
        }
        if (keyHashes.isEmpty()) {
            return current;
        }
        jdbc.query(con -> {
            PreparedStatement s = con.prepareStatement(
                    "SELECT key_hash, tenant_id FROM api_key WHERE revoked_at IS NULL AND key_hash = ANY(?)");
            s.setArray(1, con.createArrayOf("bpchar", keyHashes.toArray()));
            return s;
        }, rs -> {
            String tenant = keyTenant(rs, badRow);
            if (tenant != null) {
                current.put(rs.getString(1), Optional.of(tenant));
            }
        });
        return current;
    }

    /** The current plan of each name: present, or empty if there is none (any more) or it cannot be read. */
    public Map<String, Optional<Plan>> currentPlans(Set<String> names, Consumer<String> badRow) {
        Map<String, Optional<Plan>> current = new HashMap<>();
        for (String name : names) {
            current.put(name, Optional.empty());
        }
        if (names.isEmpty()) {
            return current;
        }
        jdbc.query(con -> {
            PreparedStatement s = con.prepareStatement("SELECT name, limits::text FROM plan WHERE name = ANY(?)");
            s.setArray(1, con.createArrayOf("text", names.toArray()));
            return s;
        }, rs -> {
            Plan plan = plan(rs, badRow);
            if (plan != null) {
                current.put(plan.name(), Optional.of(plan));
            }
        });
        return current;
    }

    /** The plan name of each tenant: present, or empty if the tenant is on the default plan. */
    public Map<String, Optional<String>> currentTenantPlans(Set<String> tenants, Consumer<String> badRow) {
        Map<String, Optional<String>> current = new HashMap<>();
        for (String tenant : tenants) {
            current.put(tenant, Optional.empty());
        }
        if (tenants.isEmpty()) {
            return current;
        }
        jdbc.query(con -> {
            PreparedStatement s = con.prepareStatement("SELECT tenant_id, plan FROM tenant_plan WHERE tenant_id = ANY(?)");
            s.setArray(1, con.createArrayOf("text", tenants.toArray()));
            return s;
        }, rs -> {
            String tenant = planTenant(rs, badRow);
            if (tenant != null) {
                current.put(tenant, Optional.of(rs.getString(2)));
            }
        });
        return current;
    }

    /**
     * Deletes change-log rows older than {@code retention} by the database's clock, the one that
     * stamped {@code changed_at}; returns how many.
     */
    public int pruneChanges(Duration retention) {
        return jdbc.update("DELETE FROM directory_change WHERE changed_at < now() - ? * interval '1 millisecond'",
                retention.toMillis());
    }

    // ---- admin API ----

    /** A rule as stored. */
    public record StoredRule(String tenant, String route, long capacity, BigDecimal refillPerSecond, long cost,
                             boolean shadow, int shards, Instant updatedAt) {
    }

    /** A page of rules, and how many there are in all. */
    public record RulePage(List<StoredRule> rules, long total) {
    }

    public RulePage listRules(String tenant, int offset, int limit) {
        String where = tenant == null ? "" : " WHERE tenant_id = ?";
        Object[] filter = tenant == null ? new Object[0] : new Object[] {tenant};
        Long total = jdbc.queryForObject("SELECT count(*) FROM rate_limit_rule" + where, Long.class, filter);
        List<Object> args = new ArrayList<>(List.of(filter));
        args.add(limit);
        args.add(offset);
        List<StoredRule> rules = jdbc.query(
                "SELECT tenant_id, route_id, capacity, refill_per_second, cost, shadow, shards, updated_at FROM rate_limit_rule"
                        + where + " ORDER BY tenant_id, route_id LIMIT ? OFFSET ?",
                (rs, i) -> storedRule(rs), args.toArray());
        return new RulePage(rules, total == null ? 0 : total);
    }

    public Optional<StoredRule> findRule(String tenant, String route) {
        return jdbc.query("SELECT tenant_id, route_id, capacity, refill_per_second, cost, shadow, shards, updated_at"
                        + " FROM rate_limit_rule WHERE tenant_id = ? AND route_id = ?",
                (rs, i) -> storedRule(rs), tenant, route).stream().findFirst();
    }

    /** Creates or replaces a rule; returns it and whether it was created. */
    public record Upserted(StoredRule rule, boolean created) {
    }

    public Upserted upsertRule(String tenant, String route, long capacity, BigDecimal refillPerSecond, long cost,
                               boolean shadow, int shards) {
        return jdbc.queryForObject(
                "INSERT INTO rate_limit_rule (tenant_id, route_id, capacity, refill_per_second, cost, shadow, shards)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?)"
                        + " ON CONFLICT (tenant_id, route_id) DO UPDATE SET capacity = EXCLUDED.capacity,"
                        + " refill_per_second = EXCLUDED.refill_per_second, cost = EXCLUDED.cost,"
                        + " shadow = EXCLUDED.shadow, shards = EXCLUDED.shards, updated_at = now()"
                        + " RETURNING tenant_id, route_id, capacity, refill_per_second, cost, shadow, shards,"
                        + " updated_at, (xmax = 0) AS created",
                (rs, i) -> new Upserted(storedRule(rs), rs.getBoolean("created")),
                tenant, route, capacity, refillPerSecond, cost, shadow, shards);
    }

    public boolean deleteRule(String tenant, String route) {
        return jdbc.update("DELETE FROM rate_limit_rule WHERE tenant_id = ? AND route_id = ?", tenant, route) > 0;
    }

    /**
     * A plan as stored: its limits as {@link LimitDocument}'s JSON array (written by the admin API,
     * canonical), and how many tenants are on it.
     */
    public record StoredPlan(String name, String limitsJson, Instant updatedAt, long tenants) {
    }

    /** Creates or replaces a plan; returns it and whether it was created. */
    public record UpsertedPlan(StoredPlan plan, boolean created) {
    }

    /** What became of a plan asked to be deleted. */
    public enum PlanDeletion { DELETED, NOT_FOUND, IN_USE }

    private static final String PLAN_COLUMNS = "p.name, p.limits::text AS limits, p.updated_at,"
            + " (SELECT count(*) FROM tenant_plan t WHERE t.plan = p.name) AS tenants";

    public List<StoredPlan> listPlans() {
        return jdbc.query("SELECT " + PLAN_COLUMNS + " FROM plan p ORDER BY p.name", (rs, i) -> storedPlan(rs));
    }

    public Optional<StoredPlan> findPlan(String name) {
        return jdbc.query("SELECT " + PLAN_COLUMNS + " FROM plan p WHERE p.name = ?", (rs, i) -> storedPlan(rs), name)
                .stream().findFirst();
    }

    /** @param limitsJson the limits as {@link LimitDocument#toJson} writes them */
    public UpsertedPlan upsertPlan(String name, String limitsJson) {
        boolean created = Boolean.TRUE.equals(jdbc.queryForObject(
                "INSERT INTO plan (name, limits) VALUES (?, ?::jsonb)"
                        + " ON CONFLICT (name) DO UPDATE SET limits = EXCLUDED.limits, updated_at = now()"
                        + " RETURNING (xmax = 0) AS created",
                Boolean.class, name, limitsJson));
        return new UpsertedPlan(findPlan(name).orElseThrow(), created);
    }

    /** Deletes a plan unless tenants are on it (the foreign key refuses it then, even in a race). */
    public PlanDeletion deletePlan(String name) {
        try {
            if (jdbc.update("DELETE FROM plan WHERE name = ?", name) > 0) {
                return PlanDeletion.DELETED;
            }
            return PlanDeletion.NOT_FOUND;
        } catch (org.springframework.dao.DataIntegrityViolationException e) {
            return PlanDeletion.IN_USE;
        }
    }

    /**
     * Puts {@code tenant} on {@code plan}: empty if there is no such plan, else whether the tenant was on
     * no plan before.
     */
    public Optional<Boolean> setTenantPlan(String tenant, String plan) {
        return jdbc.query("INSERT INTO tenant_plan (tenant_id, plan) SELECT ?, name FROM plan WHERE name = ?"
                        + " ON CONFLICT (tenant_id) DO UPDATE SET plan = EXCLUDED.plan, updated_at = now()"
                        + " RETURNING (xmax = 0) AS created",
                (rs, i) -> rs.getBoolean(1), tenant, plan).stream().findFirst();
    }

    /** The plan {@code tenant} is on, as stored; empty for a tenant on the default plan. */
    public Optional<String> findTenantPlan(String tenant) {
        return jdbc.query("SELECT plan FROM tenant_plan WHERE tenant_id = ?", (rs, i) -> rs.getString(1), tenant)
                .stream().findFirst();
    }

    /** Puts {@code tenant} back on the default plan; false if it was on it already. */
    public boolean deleteTenantPlan(String tenant) {
        return jdbc.update("DELETE FROM tenant_plan WHERE tenant_id = ?", tenant) > 0;
    }

    /** A key as stored: never the key itself. */
    public record StoredKey(long id, String tenant, String label, Instant createdAt, Instant revokedAt) {
    }

    public StoredKey createKey(String tenant, String label, String keyHash) {
        return jdbc.queryForObject(
                "INSERT INTO api_key (key_hash, tenant_id, label) VALUES (?, ?, ?)"
                        + " RETURNING id, tenant_id, label, created_at, revoked_at",
                (rs, i) -> storedKey(rs), keyHash, tenant, label);
    }

    public List<StoredKey> listKeys(String tenant) {
        return jdbc.query("SELECT id, tenant_id, label, created_at, revoked_at FROM api_key"
                + " WHERE tenant_id = ? ORDER BY id", (rs, i) -> storedKey(rs), tenant);
    }

    /** Revokes a key; empty if there is no such key. Revoking twice keeps the first time. */
    public Optional<StoredKey> revokeKey(long id) {
        jdbc.update("UPDATE api_key SET revoked_at = now() WHERE id = ? AND revoked_at IS NULL", id);
        return jdbc.query("SELECT id, tenant_id, label, created_at, revoked_at FROM api_key WHERE id = ?",
                (rs, i) -> storedKey(rs), id).stream().findFirst();
    }

    /**
     * The rule of a row, or null if the row breaks a rule's constraints or names a tenant or route id
     * the admin API would refuse: such an id, written with SQL, could carry a line break into a log
     * line or a header, or collide with another once encoded.
     */
    private static ScopedRule scopedRule(ResultSet rs, Consumer<String> badRow) throws SQLException {
        String tenant = rs.getString(1);
        String route = rs.getString(2);
        if (!Ids.isValidTenant(tenant) || !Ids.isValidRoute(route)) {
            badRow.accept("rule for tenant '" + tenant + "' route '" + route + "': ids must be " + Ids.rule());
            return null;
        }
        try {
            return new ScopedRule(tenant, route,
                    new RateLimitRule(rs.getLong(3), rs.getBigDecimal(4).doubleValue(), rs.getLong(5), rs.getBoolean(6),
                            rs.getInt(7)));
        } catch (IllegalArgumentException e) {
            badRow.accept("rule for tenant '" + tenant + "' route '" + route + "': " + e.getMessage());
            return null;
        }
    }

    /** The plan of a row (name, limits as JSON text), or null if the admin API would refuse it. */
    private static Plan plan(ResultSet rs, Consumer<String> badRow) throws SQLException {
        String name = rs.getString(1);
        try {
            return LimitDocument.readPlan(name, rs.getString(2));
        } catch (InvalidRuleException e) {
            badRow.accept("plan '" + name + "': " + e.getMessage() + "; its tenants are on the default plan");
            return null;
        }
    }

    /** The tenant id of a tenant_plan row (tenant id, plan), or null if the admin API would refuse it. */
    private static String planTenant(ResultSet rs, Consumer<String> badRow) throws SQLException {
        String tenant = rs.getString(1);
        if (Ids.isValidTenant(tenant)) {
            return tenant;
        }
        badRow.accept("plan of tenant '" + tenant + "': ids must be " + Ids.rule());
        return null;
    }

    /** The tenant id of a key row (key hash, tenant id), or null if the admin API would refuse it. */
    private static String keyTenant(ResultSet rs, Consumer<String> badRow) throws SQLException {
        String tenant = rs.getString(2);
        if (Ids.isValidTenant(tenant)) {
            return tenant;
        }
        // Never the hash in full: it identifies a live key.
        String hash = rs.getString(1);
        badRow.accept("API key " + hash.substring(0, Math.min(8, hash.length())) + "... of tenant '" + tenant
                + "': ids must be " + Ids.rule());
        return null;
    }

    private static StoredRule storedRule(ResultSet rs) throws SQLException {
        return new StoredRule(rs.getString("tenant_id"), rs.getString("route_id"), rs.getLong("capacity"),
                rs.getBigDecimal("refill_per_second").stripTrailingZeros(), rs.getLong("cost"),
                rs.getBoolean("shadow"), rs.getInt("shards"), rs.getTimestamp("updated_at").toInstant());
    }

    private static StoredPlan storedPlan(ResultSet rs) throws SQLException {
        return new StoredPlan(rs.getString("name"), rs.getString("limits"), rs.getTimestamp("updated_at").toInstant(),
                rs.getLong("tenants"));
    }

    private static StoredKey storedKey(ResultSet rs) throws SQLException {
        Timestamp revoked = rs.getTimestamp("revoked_at");
        return new StoredKey(rs.getLong("id"), rs.getString("tenant_id"), rs.getString("label"),
                rs.getTimestamp("created_at").toInstant(), revoked == null ? null : revoked.toInstant());
    }
}
