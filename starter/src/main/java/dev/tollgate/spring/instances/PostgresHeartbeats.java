package dev.tollgate.spring.instances;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * Heartbeats in PostgreSQL (table {@code gateway_instance}, migration V5), so that the local fallback
 * can learn how many instances share the limits when Redis, where they announce themselves first,
 * cannot be reached: a fleet that starts during a Redis outage still divides by the right N. Times are
 * the database's own ({@code now()}), so instances with skewed clocks agree. Instances count together
 * when they have the same {@code fleet} name. Rows silent for more than {@value #FORGET_AFTER_HOURS}
 * hour are deleted as instances beat.
 */
public final class PostgresHeartbeats implements HeartbeatStore {

    static final int FORGET_AFTER_HOURS = 1;

    /*
     * One statement: this instance's row is written, long-silent rows are dropped, and the others
     * alive within the time-to-live are counted. The SELECT sees the table as it was when the
     * statement began, without this beat: hence "1 +" and "instance_id <> ?".
     */
    private static final String BEAT = """
            WITH beat AS (
                INSERT INTO gateway_instance (fleet, instance_id, last_seen) VALUES (?, ?, now())
                ON CONFLICT (fleet, instance_id) DO UPDATE SET last_seen = now()
            ), forgotten AS (
                DELETE FROM gateway_instance WHERE last_seen < now() - interval '%d hour'
            )
            SELECT 1 + count(*) FROM gateway_instance
            WHERE fleet = ? AND instance_id <> ? AND last_seen >= now() - ? * interval '1 millisecond'
            """.formatted(FORGET_AFTER_HOURS);

    private final DataSource dataSource;
    private final String fleet;
    private final Duration ttl;
    private final int timeoutSeconds;
    private final BooleanSupplier schemaReady;

    /**
     * @param fleet   instances with the same name are counted together
     * @param ttl     an instance silent for this long is no longer counted
     * @param timeout longest a beat's statement may run (whole seconds, at least one)
     * @param schemaReady whether table {@code gateway_instance} exists yet (it is created by the
     *                    directory's migrations, which run on another thread at start)
     */
    public PostgresHeartbeats(DataSource dataSource, String fleet, Duration ttl, Duration timeout,
                              BooleanSupplier schemaReady) {
        this.dataSource = dataSource;
        this.fleet = fleet;
        this.ttl = ttl;
        this.timeoutSeconds = (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
        this.schemaReady = schemaReady;
    }

    @Override
    public String name() {
        return "postgresql-heartbeat";
    }

    @Override
    public boolean ready() {
        return schemaReady.getAsBoolean();
    }

    @Override
    public int beat(String instanceId) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(BEAT)) {
            s.setQueryTimeout(timeoutSeconds);
            s.setString(1, fleet);
            s.setString(2, instanceId);
            s.setString(3, fleet);
            s.setString(4, instanceId);
            s.setLong(5, ttl.toMillis());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return (int) Math.min(Integer.MAX_VALUE, rs.getLong(1));
            }
        }
    }

    @Override
    public void leave(String instanceId) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("DELETE FROM gateway_instance WHERE fleet = ? AND instance_id = ?")) {
            s.setQueryTimeout(1);
            s.setString(1, fleet);
            s.setString(2, instanceId);
            s.executeUpdate();
        } catch (Exception e) {
            // It stops being counted by itself after the time-to-live.
        }
    }
}
