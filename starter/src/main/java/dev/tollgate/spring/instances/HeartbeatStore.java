package dev.tollgate.spring.instances;

/**
 * A place where gateway instances announce themselves and are counted: Redis
 * ({@link RedisHeartbeats}) and PostgreSQL ({@link PostgresHeartbeats}). Each is asked by
 * {@link LiveInstances} every heartbeat interval, on a thread of its own.
 */
public interface HeartbeatStore {

    /** How health and logs name the count it gives ({@code redis-heartbeat}, {@code postgresql-heartbeat}). */
    String name();

    /**
     * Records that {@code instanceId} is alive now and returns how many instances are (this one
     * included). Blocks at most about one heartbeat interval; throws if the store cannot be reached.
     */
    int beat(String instanceId) throws Exception;

    /**
     * False while the store cannot be asked yet (PostgreSQL before Tollgate's tables are migrated):
     * {@link LiveInstances} passes it over without counting it as a failure.
     */
    default boolean ready() {
        return true;
    }

    /** Removes {@code instanceId} at once (a clean shutdown) instead of letting it expire; best effort. */
    void leave(String instanceId);
}
