package dev.tollgate.spring.postgres;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.SerialScheduler;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tollgate's one PostgreSQL {@code LISTEN} connection: every component that wants to hear of a
 * change {@linkplain #subscribe subscribes} to its channel here (the directory's
 * {@code tollgate_directory}, the regions' {@code tollgate_region_shares}), and all of them share one
 * connection, opened under the {@link ConnectionPolicy}.
 *
 * <p>A subscriber is called when a notification arrives on its channel, and also whenever it may
 * have missed one: once the connection is (re)established and its channel listened to, and at the
 * first failure of an outage (once per outage, so that it looks at the database and can report the
 * outage at once). A subscriber should only queue work: it runs on the listener's thread.
 *
 * <p>Each attempt (connect, {@code LISTEN}, then wait for notifications until the connection fails)
 * is one task of the injected scheduler, which holds its thread while the connection lasts. After a
 * failure the next attempt comes after a backoff measured on the scheduler's clock: {@code retryDelay},
 * doubled after each failed attempt up to {@code maxRetryDelay}. A quiet connection is asked
 * {@code SELECT 1} every {@link #KEEP_ALIVE} (on the clock), so a dead one says so within the
 * policy's socket timeout.
 */
public final class NotificationListener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NotificationListener.class);
    /** How long one wait for notifications blocks: also how soon a stopped listener lets go. */
    static final int POLL_MILLIS = 500;
    static final Duration KEEP_ALIVE = Duration.ofSeconds(10);
    private static final Pattern CHANNEL_NAME = Pattern.compile("[a-z_][a-z0-9_]*");

    private final ConnectionPolicy policy;
    private final DatabaseEndpoint endpoint;
    private final Duration retryDelay;
    private final Duration maxRetryDelay;
    private final SerialScheduler scheduler;
    private final MonotonicClock clock;
    private final Map<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();
    private volatile boolean stopped = true;
    private volatile boolean listening;
    // The scheduler's tasks only.
    private boolean failureSignalled;
    private int failedAttempts;
    private int generation;
    private volatile int currentGeneration;

    /**
     * @param retryDelay    the wait before the first attempt after a failure
     * @param maxRetryDelay the longest wait between attempts, however long the outage
     * @param scheduler     runs the attempts (one at a time), and measures the delays between them
     */
    public NotificationListener(ConnectionPolicy policy, DatabaseEndpoint endpoint, Duration retryDelay,
                                Duration maxRetryDelay, SerialScheduler scheduler) {
        if (maxRetryDelay.compareTo(retryDelay) < 0) {
            throw new IllegalArgumentException("maxRetryDelay " + maxRetryDelay + " is shorter than retryDelay "
                    + retryDelay);
        }
        this.policy = policy;
        this.endpoint = endpoint;
        this.retryDelay = retryDelay;
        this.maxRetryDelay = maxRetryDelay;
        this.scheduler = scheduler;
        this.clock = scheduler.clock();
    }

    /**
     * Calls {@code subscriber} on every notification on {@code channel} and whenever one may have been
     * missed (see the class). A channel subscribed to while connected is listened to at the next poll.
     */
    public void subscribe(String channel, Runnable subscriber) {
        if (!CHANNEL_NAME.matcher(channel).matches()) {
            // It goes into a LISTEN statement as it is.
            throw new IllegalArgumentException("not a plain channel name: " + channel);
        }
        subscribers.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(subscriber);
    }

    /** Starts listening: the first attempt at once. Again after {@link #stop()}, a fresh start. */
    public synchronized void start() {
        if (!stopped) {
            return;
        }
        stopped = false;
        int started = ++generation;
        currentGeneration = started;
        scheduler.execute(() -> {
            failedAttempts = 0;
            failureSignalled = false;
            listen(started);
        });
    }

    /** Stops listening: the attempt under way ends at its next poll at the latest, and no other starts. */
    public synchronized void stop() {
        stopped = true;
        currentGeneration = -1;
    }

    /** Whether the LISTEN connection is open. */
    public boolean isListening() {
        return listening;
    }

    /** One attempt: listens until the connection fails (or the listener stops), then plans the next. */
    private void listen(int started) {
        if (started != currentGeneration) {
            return;
        }
        try (Connection connection = policy.connect(endpoint, "tollgate-listener")) {
            Set<String> listened = new HashSet<>();
            PGConnection pg = connection.unwrap(PGConnection.class);
            listenToNewChannels(connection, listened);
            // Only now: on a server that refuses LISTEN (a standby) the attempt has failed above.
            listening = true;
            failedAttempts = 0;
            failureSignalled = false;
            long lastCheck = clock.nanoTime();
            while (started == currentGeneration) {
                PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                if (notifications != null) {
                    deliver(notifications);
                }
                listenToNewChannels(connection, listened);
                if (clock.nanoTime() - lastCheck > KEEP_ALIVE.toNanos()) {
                    // A dead connection that is silent would never say so: ask it something.
                    try (Statement s = connection.createStatement()) {
                        s.execute("SELECT 1");
                    }
                    lastCheck = clock.nanoTime();
                }
            }
        } catch (SQLException e) {
            if (started == currentGeneration) {
                failedAttempts++;
                log.debug("Notification listener lost its connection; reconnecting in {} ms",
                        backoff().toMillis(), e);
                if (!failureSignalled) {
                    // The database may be gone: let every subscriber find out (the directory reports it
                    // in health at once). Also when this listener never got to connect: otherwise
                    // nothing would look before the next periodic refresh. Once per outage.
                    failureSignalled = true;
                    signalAll();
                }
            }
        } finally {
            listening = false;
        }
        if (Thread.currentThread().isInterrupted()) {
            stop(); // the scheduler is being closed
        }
        if (started == currentGeneration) {
            scheduler.schedule(() -> listen(started), backoff());
        }
    }

    /** The wait before the next attempt: {@code retryDelay} doubled per failed attempt after the first. */
    Duration backoff() {
        Duration delay = retryDelay;
        for (int i = 1; i < failedAttempts && delay.compareTo(maxRetryDelay) < 0; i++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(maxRetryDelay) > 0 ? maxRetryDelay : delay;
    }

    /** LISTENs to channels subscribed to since, and tells their subscribers to catch up. */
    private void listenToNewChannels(Connection connection, Set<String> listened) throws SQLException {
        List<String> fresh = new ArrayList<>();
        for (String channel : subscribers.keySet()) {
            if (!listened.contains(channel)) {
                try (Statement s = connection.createStatement()) {
                    s.execute("LISTEN " + channel);
                }
                listened.add(channel);
                fresh.add(channel);
            }
        }
        // Only now: whatever they missed while not listened to has committed before the LISTEN.
        fresh.forEach(this::signal);
    }

    private void deliver(PGNotification[] notifications) {
        Set<String> channels = new HashSet<>();
        for (PGNotification n : notifications) {
            channels.add(n.getName());
        }
        channels.forEach(this::signal); // several notifications on one channel: one call
    }

    private void signalAll() {
        subscribers.keySet().forEach(this::signal);
    }

    private void signal(String channel) {
        for (Runnable subscriber : subscribers.getOrDefault(channel, List.of())) {
            try {
                subscriber.run();
            } catch (RuntimeException e) {
                log.warn("A subscriber of {} failed: {}", channel, e.toString());
            }
        }
    }

    /** Stops for good: also closes the scheduler. */
    @Override
    public void close() {
        stop();
        scheduler.close();
    }
}
