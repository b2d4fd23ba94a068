package dev.tollgate.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** A TCP port on the loopback interface that was free a moment ago. */
public final class FreePort {

    /** The fixed distance between a Redis Cluster node's client port and its bus port. */
    public static final int CLUSTER_BUS_OFFSET = 10_000;

    private FreePort() {
    }

    /**
     * Ports this JVM has handed out: never twice, since test classes run side by side in one JVM and
     * the port one asked for may not be bound yet when another asks.
     */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    public static int find() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free loopback port", e);
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no loopback port this JVM has not handed out already");
    }

    /**
     * A free loopback port {@code p} whose cluster bus port {@code p + 10000} is free too: Redis
     * Cluster nodes listen on both, and Redis 6.2 cannot be told another bus port. Both lie below
     * Linux's ephemeral range (32768 and up), so outgoing connections do not take them meanwhile.
     */
    public static int findWithClusterBus() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(15_000, 22_700);
            if (isFree(port) && isFree(port + CLUSTER_BUS_OFFSET)
                    && HANDED_OUT.add(port) && HANDED_OUT.add(port + CLUSTER_BUS_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port pair (p, p + 10000) with p in 15000..22700");
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
