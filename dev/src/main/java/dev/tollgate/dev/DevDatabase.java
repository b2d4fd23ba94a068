package dev.tollgate.dev;

import dev.tollgate.testkit.PostgresServer;
import java.util.concurrent.CountDownLatch;

/**
 * Dev mode's PostgreSQL alone, no gateway: {@code java -jar tollgate-dev.jar --database-only
 * [--tollgate.dev.postgres.port=N]} (default port {@value #DEFAULT_PORT}). Gateways in dev mode use it
 * with {@code --tollgate.dev.postgres.url}, so that any of them, the rebalancer's included, can be
 * stopped while the database stays (docs/multi-region.md). Stops, with its data, at Ctrl-C.
 */
final class DevDatabase {

    static final String FLAG = "--database-only";
    static final int DEFAULT_PORT = 15432;
    private static final String PORT = "--tollgate.dev.postgres.port=";

    private DevDatabase() {
    }

    static void run(String[] args) throws InterruptedException {
        int port = port(args);
        PostgresServer server = PostgresServer.startForApplication(port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "tollgate-dev-database-stop"));
        System.out.println("Dev mode: PostgreSQL alone on 127.0.0.1:" + server.port() + "; gateways use it with"
                + " --tollgate.dev.postgres.url=" + server.jdbcUrl() + " (Ctrl-C stops it, and its data goes)");
        stopped.await();
    }

    static int port(String[] args) {
        int port = DEFAULT_PORT;
        for (String arg : args) {
            if (arg.startsWith(PORT)) {
                String value = arg.substring(PORT.length());
                try {
                    port = Integer.parseInt(value);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("tollgate.dev.postgres.port must be a port number, was '"
                            + value + "'");
                }
            } else if (!arg.equals(FLAG)) {
                throw new IllegalArgumentException("with " + FLAG + " the only setting is " + PORT + "N, was " + arg);
            }
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("tollgate.dev.postgres.port must be a port number, was " + port);
        }
        return port;
    }
}
