package dev.tollgate.spring.postgres;

import dev.tollgate.spring.settings.DatabaseEndpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/**
 * How every PostgreSQL connection Tollgate opens guards against a database that stops answering: the
 * pool's ({@code DirectoryConnectionPool}), the notification listener's and the region
 * coordinator's. The one class that opens a connection itself ({@link #connect}); the pool takes its
 * values through {@link #poolDriverProperties}.
 *
 * <p>{@link #DEFAULT}:
 * <ul>
 *   <li>{@code connectTimeout} 10 s: opening the TCP connection and logging in (pgjdbc's
 *       {@code connectTimeout} and {@code loginTimeout});</li>
 *   <li>{@code socketTimeout} 30 s: the longest a single read from the server may block (pgjdbc's
 *       {@code socketTimeout}). It must stay well above the notification listener's poll (0.5 s)
 *       and the longest statement Tollgate runs, and bounds how long a network black hole can hold a
 *       thread. Only on the connections Tollgate opens itself (the listener's, the coordinator's),
 *       whose statements are short by construction. Not on the pool's: it runs the schema migrations
 *       and the directory's reads, which may wait on a lock or take long for reasons only the server
 *       can judge, and a client that gives up leaves the server's session waiting, so every retry
 *       would add one more; there, keep-alive finds a dead peer;</li>
 *   <li>{@code tcpKeepAlive} on: the operating system's keep-alive probes, so a connection whose
 *       peer vanished is dropped even while idle (the region coordinator also sets the server's
 *       {@code tcp_keepalives_*} to find a dead peer within about 25 s);</li>
 *   <li>{@code poolWait} 2 s: the longest the pool makes a caller wait for a connection before it
 *       gives up (HikariCP's {@code connectionTimeout}), so a refresh or an admin request fails
 *       fast while the database is gone.</li>
 * </ul>
 */
public record ConnectionPolicy(Duration connectTimeout, Duration socketTimeout, boolean tcpKeepAlive,
                               Duration poolWait) {

    /** The values Tollgate uses (see above). */
    public static final ConnectionPolicy DEFAULT = new ConnectionPolicy(Duration.ofSeconds(10),
            Duration.ofSeconds(30), true, Duration.ofSeconds(2));

    public ConnectionPolicy {
        requireWholeSeconds(connectTimeout, "connectTimeout");
        requireWholeSeconds(socketTimeout, "socketTimeout");
        if (poolWait == null || poolWait.toMillis() < 250) {
            // HikariCP's own floor: it refuses a shorter connectionTimeout.
            throw new IllegalArgumentException("poolWait must be at least 250 ms, was " + poolWait);
        }
    }

    private static void requireWholeSeconds(Duration timeout, String name) {
        // pgjdbc takes these in whole seconds, and 0 would mean "no timeout": never what we want.
        if (timeout == null || timeout.toSeconds() < 1 || timeout.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException(name + " must be a whole number of seconds, at least 1, was " + timeout);
        }
    }

    /**
     * The driver properties for this policy's timeouts and keep-alive, without credentials: what
     * {@link #connect} gives the connections Tollgate opens itself.
     */
    public Properties driverProperties() {
        Properties properties = poolDriverProperties();
        properties.setProperty("socketTimeout", Long.toString(socketTimeout.toSeconds()));
        return properties;
    }

    /**
     * The driver properties of the pool's connections: the connect and login timeouts and keep-alive,
     * no read timeout (see the class comment).
     */
    public Properties poolDriverProperties() {
        Properties properties = new Properties();
        properties.setProperty("connectTimeout", Long.toString(connectTimeout.toSeconds()));
        properties.setProperty("loginTimeout", Long.toString(connectTimeout.toSeconds()));
        properties.setProperty("tcpKeepAlive", Boolean.toString(tcpKeepAlive));
        return properties;
    }

    /**
     * A connection of its own (not from the pool) to {@code endpoint}, under this policy, named
     * {@code applicationName} in {@code pg_stat_activity}.
     */
    public Connection connect(DatabaseEndpoint endpoint, String applicationName) throws SQLException {
        Properties properties = endpoint.connectionProperties();
        properties.putAll(driverProperties());
        properties.setProperty("ApplicationName", applicationName);
        return DriverManager.getConnection(endpoint.url(), properties);
    }
}
