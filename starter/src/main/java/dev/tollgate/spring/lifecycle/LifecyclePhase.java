package dev.tollgate.spring.lifecycle;

import org.springframework.context.SmartLifecycle;

/**
 * The order in which Tollgate's background components start and stop. Spring starts lower phases
 * first and stops higher phases first, so a component may rely on every component of a lower phase
 * having started before it and still running until it has stopped.
 *
 * <p>All of them sit below the web server's start/stop ({@code DEFAULT_PHASE - 1024}) and graceful
 * shutdown ({@code DEFAULT_PHASE - 2048}) phases, so the server takes requests only once Tollgate has
 * started, and has drained them before Tollgate stops; and above {@code ReactorResourceFactory}'s
 * phase 0, whose event loops Tollgate's Redis connections share, so those loops are still there
 * while leases are given back and the heartbeat is taken off.
 */
public enum LifecyclePhase {

    /** Connections other components use: the Redis connector, PostgreSQL's notification listener. */
    CONNECTIONS,
    /** State read at start-up: the rule and key directory (first load), the region coordinator. */
    STATE,
    /** Work that uses both: heartbeats, lease returns, evictions and other periodic jobs. */
    WORK;

    private static final int BASE = 1 << 20;

    /** This phase as a {@link SmartLifecycle#getPhase()} value. */
    public int value() {
        return BASE + ordinal();
    }
}
