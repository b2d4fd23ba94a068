package dev.tollgate.gateway;

import reactor.netty.ReactorNetty;

/**
 * How many event loops the gateway's HTTP server runs: one per core, unless the JVM is started with
 * {@value #PROPERTY} set.
 *
 * <p>Reactor Netty's own default is at least 4 loops whatever the cores. Tollgate gathers the
 * decisions each loop reads in a turn into one Redis call per loop (see {@code EventLoopBatcher}), so
 * on a machine with fewer cores than loops (a 1- or 2-core container) the loops preempt each other and
 * split every batch among them: on 2 cores, with three limits per request at saturation, 4 loops sent
 * 7 requests per Redis call and 2 loops 17.5, which cut Redis CPU per request by about a quarter and the
 * gateway's by about a tenth, and left a gateway without the limiter the same within the rounds' spread
 * ({@code docs/performance.md} has the figures). Reactor Netty reads the setting once, when its loop
 * resources are first loaded, so it is set here, before Spring starts.
 */
public final class EventLoopCount {

    /** Reactor Netty's system property for the HTTP server's event loops. */
    public static final String PROPERTY = ReactorNetty.IO_WORKER_COUNT;

    private EventLoopCount() {
    }

    /** Sets {@value #PROPERTY} to this JVM's cores unless it is already set. */
    public static void onePerCoreUnlessSet() {
        String chosen = chosen(System.getProperty(PROPERTY), Runtime.getRuntime().availableProcessors());
        if (chosen != null) {
            System.setProperty(PROPERTY, chosen);
        }
    }

    /** The value to set given what is {@code configured} (null: nothing) and the JVM's {@code cores}; null to leave it. */
    static String chosen(String configured, int cores) {
        if (configured != null && !configured.isBlank()) {
            return null;
        }
        return Integer.toString(Math.max(1, cores));
    }
}
