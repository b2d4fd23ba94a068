package dev.tollgate.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A database created for one test class on the test JVM's shared PostgreSQL server
 * ({@link PostgresServer#freshDatabase()}): empty, with a name no other test uses, so tests that only
 * need a clean database do not pay an {@code initdb} and a server start each. Tests that stop or
 * restart PostgreSQL keep a {@link PostgresServer} of their own.
 */
public final class PostgresDatabase implements PostgresEndpoint, AutoCloseable {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final PostgresServer server;
    private final String name;

    private PostgresDatabase(PostgresServer server, String name) {
        this.server = server;
        this.name = name;
    }

    /** Creates a new empty database on {@code server}. */
    static PostgresDatabase create(PostgresServer server) {
        String name = "test_" + SEQUENCE.incrementAndGet();
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return new PostgresDatabase(server, name);
    }

    /** The database's name (a plain identifier, no quoting needed). */
    public String name() {
        return name;
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + server.port() + "/" + name;
    }

    @Override
    public String username() {
        return server.username();
    }

    @Override
    public String password() {
        return server.password();
    }

    /**
     * Drops the database, its clients' sessions with it: it is of no use after its test class. A
     * failure is ignored, since the whole server goes away with the JVM.
     */
    @Override
    public void close() {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            // left behind until the shared server stops: harmless
        }
    }
}
