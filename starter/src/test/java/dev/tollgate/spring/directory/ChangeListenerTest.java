package dev.tollgate.spring.directory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.PostgresServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The change listener tells the refresher whenever it may have missed something or the database may
 * be gone, so that health and the rules never wait for the next periodic refresh.
 */
class ChangeListenerTest {

    private static DatabaseEndpoint endpointOn(int port) {
        return new DatabaseEndpoint("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
    }

    @Test
    void aListenerThatCannotConnectTellsTheRefresherSoItCanReportTheOutage() {
        AtomicInteger signals = new AtomicInteger();
        try (ChangeListener listener = new ChangeListener(endpointOn(FreePort.find()), signals::incrementAndGet,
                Duration.ofMillis(50))) {
            listener.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> signals.get() >= 1);
            assertThat(listener.isListening()).isFalse();
        }
    }

    @Test
    void connectingLosingAndReconnectingAreEachSignalledOnce() {
        AtomicInteger signals = new AtomicInteger();
        try (PostgresServer postgres = PostgresServer.start();
             ChangeListener listener = new ChangeListener(endpointOn(postgres.port()), signals::incrementAndGet,
                     Duration.ofMillis(50))) {
            listener.start();
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
            await().atMost(Duration.ofSeconds(5)).until(() -> signals.get() >= 1); // to catch up on what it missed
            int beforeLoss = signals.get();

            postgres.stop();
            await().atMost(Duration.ofSeconds(10)).until(() -> !listener.isListening());
            await().atMost(Duration.ofSeconds(5)).until(() -> signals.get() > beforeLoss);

            int afterLoss = signals.get();

            // The restart takes a second or more, many failed attempts 50 ms apart: none of them is signalled
            // again, and the reconnection is, once.
            postgres.restart();
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
            await().atMost(Duration.ofSeconds(5)).until(() -> signals.get() > afterLoss);
            assertThat(signals.get()).isEqualTo(afterLoss + 1);
        }
    }
}
