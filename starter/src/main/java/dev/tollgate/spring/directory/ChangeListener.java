package dev.tollgate.spring.directory;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.SerialScheduler;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens for the {@code tollgate_directory} notifications that the database sends when a row is
 * added to the change log (a rule, a key, or a {@link ChangeLogFollower}'s data changed), and hands
 * each to {@code changeArrived} (the refresher's {@link DirectoryRefresher#refreshSoon()}), which
 * reads the change log at once: changes reach every instance in well under a second. Runs on its
 * own scheduler with its own connection (not from the pool); it reconnects {@code retryDelay} after
 * a failure and then signals a change too, to catch what it missed meanwhile. The first failure to
 * listen (a lost connection, or a first connection that could not be made) is signalled as well,
 * once, so that the refresher looks at the database and health tells of an outage at once.
 *
 * <p>Each attempt (connect, {@code LISTEN}, then wait for notifications until the connection fails)
 * is one task of the scheduler, which holds its thread while the connection lasts; the delay before
 * the next attempt, and the keep-alive query's interval, are measured on the scheduler's clock.
 */
public final class ChangeListener implements AutoCloseable {

    public static final String CHANNEL = "tollgate_directory";

    private static final Logger log = LoggerFactory.getLogger(ChangeListener.class);
    private static final int POLL_MILLIS = 500;
    static final Duration KEEP_ALIVE = Duration.ofSeconds(10);

    private final DatabaseEndpoint endpoint;
    private final Runnable changeArrived;
    private final Duration retryDelay;
    private final SerialScheduler scheduler;
    private final MonotonicClock clock;
    private volatile boolean closed;
    private volatile boolean listening;
    /** Whether the refresher has been told of the current failure to listen; the scheduler's tasks only. */
    private boolean failureSignalled;

    /** @param scheduler runs the attempts to listen (one at a time), and measures the delays between them */
    public ChangeListener(DatabaseEndpoint endpoint, Runnable changeArrived, Duration retryDelay,
                          SerialScheduler scheduler) {
        this.endpoint = endpoint;
        this.changeArrived = changeArrived;
        this.retryDelay = retryDelay;
        this.scheduler = scheduler;
        this.clock = scheduler.clock();
    }

    public void start() {
        scheduler.execute(this::listen);
    }

    /** Whether a LISTEN connection is currently open. */
    public boolean isListening() {
        return listening;
    }

    /** One attempt: listens until the connection fails (or the listener is closed), then plans the next. */
    private void listen() {
        if (closed) {
            return;
        }
        try (Connection connection = DriverManager.getConnection(endpoint.url(),
                endpoint.connectionProperties())) {
            try (Statement s = connection.createStatement()) {
                s.execute("LISTEN " + CHANNEL);
            }
            listening = true;
            failureSignalled = false;
            changeArrived.run();
            PGConnection pg = connection.unwrap(PGConnection.class);
            long lastCheck = clock.nanoTime();
            while (!closed) {
                PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                if (notifications != null && notifications.length > 0) {
                    changeArrived.run();
                }
                if (clock.nanoTime() - lastCheck > KEEP_ALIVE.toNanos()) {
                    // A dead connection that is silent would never say so: ask it something.
                    try (Statement s = connection.createStatement()) {
                        s.execute("SELECT 1");
                    }
                    lastCheck = clock.nanoTime();
                }
            }
        } catch (SQLException e) {
            if (!closed) {
                log.debug("Change listener lost its connection; reconnecting in {} ms", retryDelay.toMillis(), e);
                if (!failureSignalled) {
                    // The database may be gone: let the refresher find out and say so in health. Also
                    // when this listener never got to connect (the database went first, or this thread
                    // was late on a busy machine): otherwise nothing would look before the next periodic
                    // refresh. Once per outage: the refresher retries on its own.
                    failureSignalled = true;
                    changeArrived.run();
                }
            }
        } finally {
            listening = false;
        }
        if (Thread.currentThread().isInterrupted()) {
            closed = true; // the scheduler is being closed
        }
        if (!closed) {
            scheduler.schedule(this::listen, retryDelay);
        }
    }

    /** Stops listening: the attempt under way ends at its next poll at the latest, and no other starts. */
    @Override
    public void close() {
        closed = true;
        scheduler.close();
    }
}
