package dev.tollgate.spring.directory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.ManualScheduler;
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
 * The change listener tells the refresher whenever it may have missed something or the database may
 * be gone, so that health and the rules never wait for the next periodic refresh. It runs on a
 * manual scheduler here: the delay between attempts and the keep-alive interval pass when the test
 * moves the clock. An attempt that connects holds the thread that runs it until its connection
 * fails, so those are run on a thread of the test's.
 */
class ChangeListenerTest {

    private static final Duration RETRY_DELAY = Duration.ofMillis(50);

    private static DatabaseEndpoint endpointOn(int port) {
        return new DatabaseEndpoint("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
    }

    @Test
    void aListenerThatCannotConnectTellsTheRefresherSoItCanReportTheOutage() {
        AtomicInteger signals = new AtomicInteger();
        ManualScheduler scheduler = new ManualScheduler();
        try (ChangeListener listener = new ChangeListener(endpointOn(FreePort.find()), signals::incrementAndGet,
                RETRY_DELAY, scheduler)) {
            listener.start();
            scheduler.runDue(); // the first attempt, refused at once
            assertThat(signals.get()).isEqualTo(1);
            assertThat(listener.isListening()).isFalse();
            assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY);

            // The next attempts come one retry delay apart, and are not signalled: one outage, one signal.
            scheduler.advance(RETRY_DELAY.minusNanos(1));
            assertThat(scheduler.pendingDelays()).containsExactly(Duration.ofNanos(1));
            scheduler.advance(Duration.ofNanos(1).plus(RETRY_DELAY.multipliedBy(4)));
            assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY);
            assertThat(signals.get()).isEqualTo(1);
        }
    }

    @Test
    void connectingLosingAndReconnectingAreEachSignalledOnce() throws Exception {
        AtomicInteger signals = new AtomicInteger();
        ManualScheduler scheduler = new ManualScheduler();
        ExecutorService attempts = Executors.newSingleThreadExecutor();
        try (PostgresServer postgres = PostgresServer.start();
             ChangeListener listener = new ChangeListener(endpointOn(postgres.port()), signals::incrementAndGet,
                     RETRY_DELAY, scheduler)) {
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

            // Attempts while the database is down, one retry delay apart: none of them is signalled.
            for (int i = 0; i < 20; i++) {
                scheduler.advance(RETRY_DELAY);
                assertThat(scheduler.pendingDelays()).containsExactly(RETRY_DELAY);
            }
            assertThat(signals.get()).isEqualTo(2);

            // The reconnection is signalled, once.
            postgres.restart();
            attempt = attempts.submit(() -> scheduler.advance(RETRY_DELAY));
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
    void aQuietConnectionIsAskedSomethingOnceTheKeepAliveIntervalHasPassedOnTheClock() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        ExecutorService attempts = Executors.newSingleThreadExecutor();
        try (PostgresServer postgres = PostgresServer.start();
             ChangeListener listener = new ChangeListener(endpointOn(postgres.port()), () -> { },
                     RETRY_DELAY, scheduler)) {
            listener.start();
            Future<?> attempt = attempts.submit(scheduler::runDue);
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
            assertThat(lastQueryOfTheListener(postgres)).isEqualTo("LISTEN " + ChangeListener.CHANNEL);

            scheduler.clock().advance(ChangeListener.KEEP_ALIVE.plusMillis(1));
            await().atMost(Duration.ofSeconds(5)).until(() -> "SELECT 1".equals(lastQueryOfTheListener(postgres)));

            listener.close();
            attempt.get(5, TimeUnit.SECONDS);
        } finally {
            attempts.shutdownNow();
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
