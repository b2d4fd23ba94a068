package dev.tollgate.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * Where a test's PostgreSQL database is: a server's {@code postgres} database ({@link PostgresServer})
 * or a fresh database of its own on the shared server ({@link PostgresDatabase}). Gateways under test
 * are configured from it alone, so a test does not care which.
 */
public interface PostgresEndpoint {

    /** The port of the server, on 127.0.0.1. */
    int port();

    /** The JDBC URL of the database. */
    String jdbcUrl();

    String username();

    String password();

    /** A new connection to the database; the caller closes it. */
    default Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), username(), password());
    }
}
