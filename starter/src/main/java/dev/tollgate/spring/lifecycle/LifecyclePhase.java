package dev.tollgate.spring.lifecycle;

import org.springframework.context.SmartLifecycle;

/**
 * The order in which Tollgate's background components start and stop. Spring starts lower phases
 * first and stops higher phases first, so a component may rely on every component of a lower phase
 * having started before it and still running until it has stopped.
 *
 * <p>All of them sit below the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}) and
 * start/stop ({@code DEFAULT_PHASE - 2048}) phases, so the server takes requests only once Tollgate has
 * started, and has drained them before Tollgate stops; and above {@code ReactorResourceFactory}'s
 * phase 0, whose event loops Tollgate's Redis connections share, so those loops are still there
 * while leases are given back and the heartbeat is taken off (in that order: {@link #WORK} stops
 * before {@link #PRESENCE}, both before {@link #CONNECTIONS} closes the connections).
 */
public enum LifecyclePhase {

    /** Connections other components use: the Redis connector, PostgreSQL's notification listener. */
    CONNECTIONS,
    /** State read at start-up: the rule and key directory (first load), the region coordinator. */
    STATE,
    /**
     * This instance's presence in the fleet: its heartbeats (Redis, PostgreSQL), whose count the
     * local fallback divides limits by. Taken off after the work, so that instances still at work
     * are still counted; put on before it, so that the count is being learnt when work begins.
     */
    PRESENCE,
    /**
     * Work on the connections and state: lease returns (stopping them gives every lease back, while
     * the connections and this instance's heartbeat are still there), fallback eviction and other
     * periodic jobs.
     */
    WORK;

    private static final int BASE = 1 << 20;

    /** This phase as a {@link SmartLifecycle#getPhase()} value. */
    public int value() {
        return BASE + ordinal();
    }
}
