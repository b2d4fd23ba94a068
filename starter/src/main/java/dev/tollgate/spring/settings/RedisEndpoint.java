package dev.tollgate.spring.settings;

import dev.tollgate.redis.DedicatedRedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The Redis Tollgate opens its own connections to: one server, or the cluster nodes it first contacts
 * to learn the cluster. Read from Spring Boot's standard {@code spring.data.redis.*} properties
 * ({@link RedisConnectionProperties});
 * an application that defines a bean of this type (dev mode, for its own server) replaces them.
 *
 * @param nodes          the server, or the cluster nodes it first contacts
 * @param cluster        whether {@code nodes} belong to a Redis Cluster
 * @param database       database index (a standalone server only)
 * @param username       ACL user name, or {@code null}
 * @param password       password, or {@code null}
 * @param ssl            whether to connect over TLS (trusting what the JVM trusts)
 * @param commandTimeout Lettuce's own command timeout; decisions are cut off much sooner
 */
public record RedisEndpoint(List<Node> nodes, boolean cluster, int database, String username, String password,
                            boolean ssl, Duration commandTimeout) {

    /** One Redis server's address. */
    public record Node(String host, int port) {
        public Node {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("a Redis host must not be blank");
            }
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("a Redis port must be between 1 and 65535, was " + port);
            }
        }

        @Override
        public String toString() {
            return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
        }
    }

    public RedisEndpoint {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a Redis endpoint needs at least one node");
        }
        if (!cluster && nodes.size() != 1) {
            throw new IllegalArgumentException("a standalone Redis is one node, was " + nodes);
        }
        if (database < 0) {
            throw new IllegalArgumentException("a Redis database index must be 0 or more, was " + database);
        }
        if (cluster && database != 0) {
            throw new IllegalArgumentException("Redis Cluster has database 0 only, was " + database);
        }
        if (commandTimeout == null || commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("a Redis command timeout must be positive, was " + commandTimeout);
        }
    }

    /** A standalone server without credentials or TLS, database 0, the default command timeout. */
    public static RedisEndpoint standalone(String host, int port) {
        return new RedisEndpoint(List.of(new Node(host, port)), false, 0, null, null, false,
                DedicatedRedisClient.DEFAULT_COMMAND_TIMEOUT);
    }

    /** One Lettuce URI per node, credentials and TLS included. */
    public List<RedisURI> uris() {
        return nodes.stream().map(this::uri).toList();
    }

    private RedisURI uri(Node node) {
        RedisURI.Builder uri = RedisURI.builder()
                .withHost(node.host())
                .withPort(node.port())
                .withDatabase(database)
                .withSsl(ssl);
        if (password != null) {
            if (username != null) {
                uri.withAuthentication(username, password.toCharArray());
            } else {
                uri.withPassword(password.toCharArray());
            }
        }
        return uri.build();
    }

    /**
     * The Redis in use, written the same way by every instance configured alike and never with a
     * credential: the default name under which instances count each other in PostgreSQL
     * ({@code tollgate.fallback.fleet}), since the instances that share a Redis share its buckets.
     */
    public String address() {
        if (cluster) {
            return "redis-cluster://" + nodes.stream().map(Node::toString).sorted().collect(Collectors.joining(","));
        }
        return "redis://" + nodes.get(0) + "/" + database;
    }

    @Override
    public String toString() {
        return "RedisEndpoint[" + address() + (ssl ? ", tls" : "") + (username != null ? ", user " + username : "")
                + "]"; // never the password
    }
}
