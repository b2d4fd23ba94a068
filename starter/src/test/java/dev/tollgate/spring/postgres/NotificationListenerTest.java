package dev.tollgate.spring.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;


import dev.tollgate.core.ManualScheduler;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The notification listener tells its subscribers whenever a notification arrives on their channel,
 * and whenever they may have missed one or the database may be gone, so that health and the rules
 * never wait for the next periodic refresh. It runs on a manual scheduler here: the backoff between
 * attempts and the keep-alive interval pass when the test moves the clock. An attempt that connects
 * holds the thread that runs it until its connection fails, so those are run on a thread of the
 * test's.
 */
class NotificationListenerTest {

    private static final Duration RETRY_DELAY = Duration.ofMillis(50);
    private static final Duration MAX_RETRY_DELAY = RETRY_DELAY.multipliedBy(4);
    private static final String CHANNEL = DirectoryRefresher.CHANGES_CHANNEL;

    private static DatabaseEndpoint endpointOn(int port) {
        return new DatabaseEndpoint("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
    }

    private static NotificationListener listener(int port, ManualScheduler scheduler) {
        return new NotificationListener(ConnectionPolicy.DEFAULT, endpointOn(port), RETRY_DELAY, MAX_RETRY_DELAY,
                scheduler);
    }

    @Test
    void aListenerThatCannotConnectTellsItsSubscribersOnceAndBacksOff() {
        AtomicInteger signals = new AtomicInteger();
        ManualScheduler scheduler = new ManualScheduler();
        try (NotificationListener listener = listener(FreePort.find(), scheduler)) {
            listener.subscribe(CHANNEL, signals::incrementAndGet);
            listener.start();
            scheduler.runDue(); // the first attempt, refused at once
            assertThat(signals.get()).isEqualTo(1);
            assertThat(listener.isListening()).isFalse();
            assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY);

            // The next attempts come after a doubling delay, up to the maximum, and are not signalled:
            // one outage, one signal.
            scheduler.advance(RETRY_DELAY.minusNanos(1));
            assertThat(scheduler.pendingDelays()).containsExactly(Duration.ofNanos(1));
            scheduler.advance(Duration.ofNanos(1));
            assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY.multipliedBy(2));
            scheduler.advance(RETRY_DELAY.multipliedBy(2));
            assertThat(scheduler.pendingDelays()).containsExactly(MAX_RETRY_DELAY);
            scheduler.advance(MAX_RETRY_DELAY);
            assertThat(scheduler.pendingDelays()).containsExactly(MAX_RETRY_DELAY);
            assertThat(signals.get()).isEqualTo(1);
        }
    }

    @Test
    void connectingLosingAndReconnectingAreEachSignalledOnce() throws Exception {
        AtomicInteger signals = new AtomicInteger();
        ManualScheduler scheduler = new ManualScheduler();
        ExecutorService attempts = Executors.newSingleThreadExecutor();
        try (PostgresServer postgres = PostgresServer.start();
             NotificationListener listener = listener(postgres.port(), scheduler)) {
            listener.subscribe(CHANNEL, signals::incrementAndGet);
            listener.start();
            Future<?> attempt = attempts.submit(scheduler::runDue);
            await().atMost(Duration.ofSeconds(10)).until(() -> signals.get() >= 1); // to catch up on what it missed
            assertThat(listener.isListening()).isTrue();
            assertThat(signals.get()).isEqualTo(1);

            postgres.stop();
            attempt.get(10, TimeUnit.SECONDS); // the attempt ends with its connection
            assertThat(listener.isListening()).isFalse();
            assertThat(signals.get()).isEqualTo(2);
            assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY);

            // Attempts while the database is down, after a growing delay: none of them is signalled.
            for (int i = 0; i < 20; i++) {
                scheduler.advance(scheduler.pendingDelays().get(0));
                assertThat(scheduler.pendingDelays()).hasSize(1);
            }
            assertThat(scheduler.pendingDelays()).containsExactly(MAX_RETRY_DELAY);
            assertThat(signals.get()).isEqualTo(2);

            // The reconnection is signalled, once.
            postgres.restart();
            attempt = attempts.submit(() -> scheduler.advance(MAX_RETRY_DELAY));
            await().atMost(Duration.ofSeconds(10)).until(() -> signals.get() >= 3);
            assertThat(listener.isListening()).isTrue();
            assertThat(signals.get()).isEqualTo(3);

            listener.close();
            attempt.get(5, TimeUnit.SECONDS); // a closed listener's attempt ends at its next poll
        } finally {
            attempts.shutdownNow();
        }
    }

    @Test
    void twoChannelsOnOneConnectionEachReachItsSubscribersAndSurviveATerminatedBackend() throws Exception {
        AtomicInteger directory = new AtomicInteger();
        AtomicInteger shares = new AtomicInteger();
        ManualScheduler scheduler = new ManualScheduler();
        ExecutorService attempts = Executors.newSingleThreadExecutor();
        try (PostgresServer postgres = PostgresServer.start();
             NotificationListener listener = listener(postgres.port(), scheduler)) {
            listener.subscribe("tollgate_directory", directory::incrementAndGet);
            listener.subscribe("tollgate_region_shares", shares::incrementAndGet);
            listener.start();
            Future<?> attempt = attempts.submit(scheduler::runDue);
            await().atMost(Duration.ofSeconds(10)).until(() -> directory.get() == 1 && shares.get() == 1);
            assertThat(listenerSessions(postgres)).isEqualTo(1); // one connection for both channels

            notify(postgres, "tollgate_directory");
            await().atMost(Duration.ofSeconds(10)).until(() -> directory.get() == 2);
            assertThat(shares.get()).isEqualTo(1);
            notify(postgres, "tollgate_region_shares");
            await().atMost(Duration.ofSeconds(10)).until(() -> shares.get() == 2);
            assertThat(directory.get()).isEqualTo(2);

            // The backend killed under it: the attempt ends, both subscribers hear of it, and the next
            // attempt, one retry delay later on the clock, listens to both channels again.
            try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
                s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        + " WHERE application_name = 'tollgate-listener'");
            }
            attempt.get(10, TimeUnit.SECONDS);
            assertThat(directory.get()).isEqualTo(3);
            assertThat(shares.get()).isEqualTo(3);
            assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY);
            attempt = attempts.submit(() -> scheduler.advance(RETRY_DELAY));
            await().atMost(Duration.ofSeconds(10)).until(() -> directory.get() == 4 && shares.get() == 4);
            assertThat(listener.isListening()).isTrue();

            notify(postgres, "tollgate_region_shares");
            await().atMost(Duration.ofSeconds(10)).until(() -> shares.get() == 5);
            assertThat(directory.get()).isEqualTo(4);

            listener.stop();
            attempt.get(5, TimeUnit.SECONDS); // a stopped listener's attempt ends at its next poll
            assertThat(listener.isListening()).isFalse();
            assertThat(scheduler.pendingDelays()).isEmpty();
        } finally {
            attempts.shutdownNow();
        }
    }

    @Test
    void aQuietConnectionIsAskedSomethingOnceTheKeepAliveIntervalHasPassedOnTheClock() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        ExecutorService attempts = Executors.newSingleThreadExecutor();
        try (PostgresServer postgres = PostgresServer.start();
             NotificationListener listener = listener(postgres.port(), scheduler)) {
            listener.subscribe(CHANNEL, () -> { });
            listener.start();
            Future<?> attempt = attempts.submit(scheduler::runDue);
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
            await().atMost(Duration.ofSeconds(5)).until(() -> ("LISTEN " + CHANNEL).equals(lastQueryOfTheListener(postgres)));

            scheduler.clock().advance(NotificationListener.KEEP_ALIVE.plusMillis(1));
            await().atMost(Duration.ofSeconds(5)).until(() -> "SELECT 1".equals(lastQueryOfTheListener(postgres)));

            listener.close();
            attempt.get(5, TimeUnit.SECONDS);
        } finally {
            attempts.shutdownNow();
        }
    }

    private static void notify(PostgresServer postgres, String channel) throws SQLException {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.execute("NOTIFY " + channel);
        }
    }

    private static int listenerSessions(PostgresServer postgres) throws SQLException {
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE application_name = 'tollgate-listener'")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** The last statement of the database's one other client session: the listener's. */
    private static String lastQueryOfTheListener(PostgresServer postgres) throws SQLException {
        try (Connection connection = postgres.connect();
             Statement s = connection.createStatement();
             ResultSet rows = s.executeQuery("SELECT query FROM pg_stat_activity"
                     + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
            assertThat(rows.next()).as("the listener's session").isTrue();
            String query = rows.getString(1);
            assertThat(rows.next()).as("another session").isFalse();
            return query;
        }
    }
}
