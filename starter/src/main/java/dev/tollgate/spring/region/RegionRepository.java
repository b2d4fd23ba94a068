package dev.tollgate.spring.region;

import dev.tollgate.core.RuleScope;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.core.region.RegionShares;
import dev.tollgate.core.region.ShareRebalancer;
import dev.tollgate.core.region.ShareTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Every SQL statement of the regions' shares and demand (tables of {@code V6__region_shares.sql}),
 * run on the one connection the {@link RegionCoordinator} holds, which is also the connection that
 * holds the rebalancer's advisory lock: a write made on it after the lock was lost fails with it.
 */
final class RegionRepository {

    /** Channel the rebalancer notifies when shares change. */
    static final String CHANNEL = "tollgate_region_shares";

    /** Session advisory lock held by the instance that runs the rebalancer ("tollgate" in ASCII). */
    static final long REBALANCER_LOCK = 0x746f6c6c67617465L;

    /** One bucket an instance reports for its last window. */
    record Report(RuleScope bucket, DemandMeter.Counts counts) {
    }

    /** The version of the shares, and how long ago the rebalancer last ran (null: never). */
    record State(long sharesVersion, Double lastRunAgeSeconds) {
    }

    /**
     * Sets keep-alives, so that a dead peer frees the lock within about 25 s. Returns whether the
     * server is a standby (a read replica), where PostgreSQL allows no writes. (Share changes are
     * heard by the notification listener's connection, not this one.)
     */
    boolean prepare(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET tcp_keepalives_idle = 10");
            s.execute("SET tcp_keepalives_interval = 5");
            s.execute("SET tcp_keepalives_count = 3");
            boolean standby;
            try (ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
                rs.next();
                standby = rs.getBoolean(1);
            }
            return standby;
        }
    }

    State state(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT shares_version, extract(epoch FROM now() - last_run_at)"
                     + " FROM rebalancer_state WHERE id = 1")) {
            if (!rs.next()) {
                return new State(0, null);
            }
            double age = rs.getDouble(2);
            return new State(rs.getLong(1), rs.wasNull() ? null : age);
        }
    }

    /** The stored shares as a table over {@code defaults}, and their version, read consistently. */
    record Loaded(ShareTable table, long version) {
    }

    Loaded loadShares(Connection c, RegionShares defaults, Consumer<String> badBucket) throws SQLException {
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try {
            long version = state(c).sharesVersion();
            Map<RuleScope, Map<String, Integer>> rows = new HashMap<>();
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT tenant_id, route_id, region, share_ppm FROM region_share")) {
                while (rs.next()) {
                    rows.computeIfAbsent(new RuleScope(rs.getString(1), rs.getString(2)), k -> new LinkedHashMap<>())
                            .put(rs.getString(3), rs.getInt(4));
                }
            }
            c.commit();
            Map<RuleScope, RegionShares> stored = new HashMap<>();
            rows.forEach((bucket, ppm) -> {
                try {
                    stored.put(bucket, RegionShares.ofPpm(ppm));
                } catch (IllegalArgumentException e) {
                    badBucket.accept("shares of tenant '" + bucket.tenant() + "' route '" + bucket.route() + "': "
                            + e.getMessage());
                }
            });
            return new Loaded(new ShareTable(defaults, stored), version);
        } finally {
            finish(c);
        }
    }

    /** Replaces this instance's report with its last window's, and records that it reported. */
    void publish(Connection c, String instanceId, String region, List<Report> reports, long windowMillis)
            throws SQLException {
        c.setAutoCommit(false);
        try {
            try (PreparedStatement s = c.prepareStatement("DELETE FROM region_demand WHERE instance_id = ?")) {
                s.setString(1, instanceId);
                s.executeUpdate();
            }
            if (!reports.isEmpty()) {
                try (PreparedStatement s = c.prepareStatement("INSERT INTO region_demand (instance_id, tenant_id,"
                        + " route_id, region, offered_tokens, admitted_tokens, window_ms) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                    for (Report report : reports) {
                        s.setString(1, instanceId);
                        s.setString(2, report.bucket().tenant());
                        s.setString(3, report.bucket().route());
                        s.setString(4, region);
                        s.setLong(5, report.counts().offeredTokens());
                        s.setLong(6, report.counts().admittedTokens());
                        s.setLong(7, Math.max(1, windowMillis));
                        s.addBatch();
                    }
                    s.executeBatch();
                }
            }
            try (PreparedStatement s = c.prepareStatement("INSERT INTO region_reporter (instance_id, region, reported_at)"
                    + " VALUES (?, ?, now()) ON CONFLICT (instance_id) DO UPDATE"
                    + " SET region = EXCLUDED.region, reported_at = EXCLUDED.reported_at")) {
                s.setString(1, instanceId);
                s.setString(2, region);
                s.executeUpdate();
            }
            c.commit();
        } finally {
            finish(c);
        }
    }

    /** Removes this instance's report (a clean shutdown), so its region's demand no longer counts it. */
    void leave(Connection c, String instanceId) throws SQLException {
        try (PreparedStatement d = c.prepareStatement("DELETE FROM region_demand WHERE instance_id = ?");
             PreparedStatement r = c.prepareStatement("DELETE FROM region_reporter WHERE instance_id = ?")) {
            d.setString(1, instanceId);
            d.executeUpdate();
            r.setString(1, instanceId);
            r.executeUpdate();
        }
    }

    /** Takes the rebalancer's lock for this session if no other session holds it. */
    boolean tryLock(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            s.setLong(1, REBALANCER_LOCK);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * Within the run's transaction: records a run unless one started less than {@code minGapMillis}
     * ago (another instance ran just before this one took over); the row lock also serialises runs.
     */
    boolean claimRun(Connection c, String instanceId, long minGapMillis) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE rebalancer_state SET last_run_at = now(), last_run_by = ?"
                + " WHERE id = 1 AND (last_run_at IS NULL OR last_run_at <= now() - ? * interval '1 millisecond')")) {
            s.setString(1, instanceId);
            s.setLong(2, minGapMillis);
            return s.executeUpdate() == 1;
        }
    }

    /** Regions with at least one instance that reported within {@code freshMillis}. */
    Set<String> reportingRegions(Connection c, long freshMillis) throws SQLException {
        Set<String> regions = new HashSet<>();
        try (PreparedStatement s = c.prepareStatement("SELECT DISTINCT region FROM region_reporter"
                + " WHERE reported_at > now() - ? * interval '1 millisecond'")) {
            s.setLong(1, freshMillis);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    regions.add(rs.getString(1));
                }
            }
        }
        return regions;
    }

    /** Offered tokens per second by bucket and region: each fresh instance's last window, summed per region. */
    Map<RuleScope, Map<String, Double>> reportedDemand(Connection c, long freshMillis) throws SQLException {
        Map<RuleScope, Map<String, Double>> demand = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT d.tenant_id, d.route_id, r.region,"
                + " sum(d.offered_tokens * 1000.0 / d.window_ms)"
                + " FROM region_demand d JOIN region_reporter r ON r.instance_id = d.instance_id"
                + " WHERE r.reported_at > now() - ? * interval '1 millisecond'"
                + " GROUP BY d.tenant_id, d.route_id, r.region")) {
            s.setLong(1, freshMillis);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    demand.computeIfAbsent(new RuleScope(rs.getString(1), rs.getString(2)), k -> new HashMap<>())
                            .put(rs.getString(3), rs.getDouble(4));
                }
            }
        }
        return demand;
    }

    /** What earlier runs kept: each tracked bucket's shares and smoothed demand. */
    Map<RuleScope, ShareRebalancer.Tracked> tracked(Connection c, Consumer<String> badBucket) throws SQLException {
        Map<RuleScope, Map<String, Integer>> shares = new HashMap<>();
        Map<RuleScope, Map<String, Double>> demand = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT tenant_id, route_id, region, share_ppm, demand FROM region_share")) {
            while (rs.next()) {
                RuleScope bucket = new RuleScope(rs.getString(1), rs.getString(2));
                shares.computeIfAbsent(bucket, k -> new LinkedHashMap<>()).put(rs.getString(3), rs.getInt(4));
                double d = rs.getDouble(5);
                Map<String, Double> byRegion = demand.computeIfAbsent(bucket, k -> new HashMap<>());
                if (!rs.wasNull()) {
                    byRegion.put(rs.getString(3), d);
                }
            }
        }
        Map<RuleScope, ShareRebalancer.Tracked> tracked = new HashMap<>();
        shares.forEach((bucket, ppm) -> {
            try {
                tracked.put(bucket, new ShareRebalancer.Tracked(RegionShares.ofPpm(ppm), demand.get(bucket)));
            } catch (IllegalArgumentException e) {
                badBucket.accept("shares of tenant '" + bucket.tenant() + "' route '" + bucket.route() + "': "
                        + e.getMessage());
            }
        });
        return tracked;
    }

    /** Replaces the rows of each bucket with its new shares and smoothed demand. */
    void write(Connection c, Map<RuleScope, ShareRebalancer.Tracked> writes) throws SQLException {
        if (writes.isEmpty()) {
            return;
        }
        try (PreparedStatement delete = c.prepareStatement(
                "DELETE FROM region_share WHERE tenant_id = ? AND route_id = ?");
             PreparedStatement insert = c.prepareStatement("INSERT INTO region_share"
                     + " (tenant_id, route_id, region, share_ppm, demand) VALUES (?, ?, ?, ?, ?)")) {
            for (Map.Entry<RuleScope, ShareRebalancer.Tracked> e : writes.entrySet()) {
                delete.setString(1, e.getKey().tenant());
                delete.setString(2, e.getKey().route());
                delete.addBatch();
                for (Map.Entry<String, Integer> share : e.getValue().shares().ppmByRegion().entrySet()) {
                    insert.setString(1, e.getKey().tenant());
                    insert.setString(2, e.getKey().route());
                    insert.setString(3, share.getKey());
                    insert.setInt(4, share.getValue());
                    Double d = e.getValue().smoothedDemand().get(share.getKey());
                    if (d == null) {
                        insert.setNull(5, java.sql.Types.DOUBLE);
                    } else {
                        insert.setDouble(5, d);
                    }
                    insert.addBatch();
                }
            }
            delete.executeBatch();
            insert.executeBatch();
        }
    }

    /** Raises the shares' version and notifies every instance (delivered when the transaction commits). */
    void sharesChanged(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE rebalancer_state SET shares_version = shares_version + 1 WHERE id = 1");
            s.execute("SELECT pg_notify('" + CHANNEL + "', 'changed')");
        }
    }

    /** Forgets instances silent for longer than {@code staleMillis}, with their reports. */
    void pruneReporters(Connection c, long staleMillis) throws SQLException {
        try (PreparedStatement d = c.prepareStatement("DELETE FROM region_demand WHERE instance_id IN"
                + " (SELECT instance_id FROM region_reporter WHERE reported_at < now() - ? * interval '1 millisecond')");
             PreparedStatement r = c.prepareStatement(
                     "DELETE FROM region_reporter WHERE reported_at < now() - ? * interval '1 millisecond'")) {
            d.setLong(1, staleMillis);
            d.executeUpdate();
            r.setLong(1, staleMillis);
            r.executeUpdate();
        }
    }

    /** Ends a transaction the caller opened: rolls back what was not committed, back to auto-commit. */
    static void finish(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            try {
                c.rollback();
            } finally {
                c.setAutoCommit(true);
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
        }
    }
}
