package dev.tollgate.spring.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;


import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** One policy for every connection: its values reach the driver, and a nonsense policy is refused. */
class ConnectionPolicyTest {

    @Test
    void theDefaultsAreTheDocumentedOnesAndReachTheDriverInItsUnits() {
        ConnectionPolicy policy = ConnectionPolicy.DEFAULT;
        assertThat(policy.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(policy.socketTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(policy.tcpKeepAlive()).isTrue();
        assertThat(policy.poolWait()).isEqualTo(Duration.ofSeconds(2));

        Properties driver = policy.driverProperties();
        assertThat(driver).containsEntry("connectTimeout", "10").containsEntry("loginTimeout", "10")
                .containsEntry("socketTimeout", "30").containsEntry("tcpKeepAlive", "true");
        assertThat(driver).doesNotContainKeys("user", "password");

        // The pool's connections: the same but no read timeout (migrations and lock waits are the server's to judge).
        Properties pool = policy.poolDriverProperties();
        assertThat(pool).containsEntry("connectTimeout", "10").containsEntry("loginTimeout", "10")
                .containsEntry("tcpKeepAlive", "true").doesNotContainKeys("socketTimeout", "user", "password");
    }

    @Test
    void theSocketTimeoutOutlastsTheListenersPoll() {
        // Otherwise every wait for notifications would end in a timeout.
        assertThat(ConnectionPolicy.DEFAULT.socketTimeout().toMillis())
                .isGreaterThan(10L * NotificationListener.POLL_MILLIS);
    }

    @Test
    void noTimeoutAtAllOrAFractionOfASecondIsRefused() {
        assertThatThrownBy(() -> new ConnectionPolicy(Duration.ZERO, Duration.ofSeconds(30), true, Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> new ConnectionPolicy(Duration.ofSeconds(1), Duration.ofMillis(1500), true,
                Duration.ofSeconds(2))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("socketTimeout");
        assertThatThrownBy(() -> new ConnectionPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), true,
                Duration.ofMillis(10))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("poolWait");
    }

    @Test
    void aConnectionOfItsOwnCarriesTheCredentialsTheSchemaAndTheName() throws Exception {
        try (PostgresServer postgres = PostgresServer.start()) {
            DatabaseEndpoint endpoint = new DatabaseEndpoint(postgres.jdbcUrl(), postgres.username(),
                    postgres.password(), "tollgate_policy");
            try (Connection c = ConnectionPolicy.DEFAULT.connect(endpoint, "tollgate-test");
                 Statement s = c.createStatement();
                 ResultSet rows = s.executeQuery("SELECT current_setting('application_name'),"
                         + " current_setting('search_path')")) {
                rows.next();
                assertThat(rows.getString(1)).isEqualTo("tollgate-test");
                assertThat(rows.getString(2)).contains("tollgate_policy");
            }
        }
    }
}
