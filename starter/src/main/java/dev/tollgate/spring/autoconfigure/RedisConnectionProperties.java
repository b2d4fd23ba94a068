package dev.tollgate.spring.autoconfigure;

import dev.tollgate.redis.DedicatedRedisClient;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Spring Boot's standard Redis properties, {@code spring.data.redis.*}, read by Tollgate itself: the
 * starter does not bring Spring Data Redis (nor its health check, nor its repositories), so it binds
 * the few it uses. Read the way Spring Boot reads them: {@code url} (a {@code redis://} or
 * {@code rediss://} URL with optional credentials and database) wins over host, port and credentials;
 * {@code cluster.nodes} makes it a cluster. Not a {@code @ConfigurationProperties} record: Spring Boot
 * documents these names already, and an application with Spring Data Redis binds them too.
 *
 * <p>Sentinel is refused: the bucket store needs a standalone server or a cluster.
 */
final class RedisConnectionProperties {

    static final String PREFIX = "spring.data.redis";
    private static final int DEFAULT_PORT = 6379;

    private RedisConnectionProperties() {
    }

    /** The endpoint {@code spring.data.redis.*} describes; a bad value stops the start, naming the setting. */
    static RedisEndpoint endpoint(Environment environment) {
        Binder binder = Binder.get(environment);
        if (binder.bind(PREFIX + ".sentinel.master", String.class).isBound()
                || !binder.bind(PREFIX + ".sentinel.nodes", Bindable.listOf(String.class)).orElse(List.of()).isEmpty()) {
            throw new IllegalArgumentException("Redis Sentinel (" + PREFIX + ".sentinel.*) is not supported by"
                    + " Tollgate's bucket store; use a standalone server (" + PREFIX + ".host/port) or a cluster ("
                    + PREFIX + ".cluster.nodes)");
        }
        String host = binder.bind(PREFIX + ".host", String.class).orElse("localhost");
        int port = binder.bind(PREFIX + ".port", Integer.class).orElse(DEFAULT_PORT);
        String username = blankToNull(binder.bind(PREFIX + ".username", String.class).orElse(null));
        String password = binder.bind(PREFIX + ".password", String.class).orElse(null);
        int database = binder.bind(PREFIX + ".database", Integer.class).orElse(0);
        boolean ssl = binder.bind(PREFIX + ".ssl.enabled", Boolean.class).orElse(false)
                || !binder.bind(PREFIX + ".ssl.bundle", String.class).orElse("").isBlank();
        Duration timeout = binder.bind(PREFIX + ".timeout", Duration.class).orElse(DedicatedRedisClient.DEFAULT_COMMAND_TIMEOUT);
        String url = blankToNull(binder.bind(PREFIX + ".url", String.class).orElse(null));
        List<String> clusterNodes = binder.bind(PREFIX + ".cluster.nodes", Bindable.listOf(String.class))
                .orElse(List.of());

        if (url != null) {
            URI parsed = parseUrl(url);
            host = parsed.getHost();
            port = parsed.getPort() == -1 ? DEFAULT_PORT : parsed.getPort();
            ssl = "rediss".equals(parsed.getScheme());
            String userInfo = parsed.getRawUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                username = colon < 0 ? null : blankToNull(decode(userInfo.substring(0, colon)));
                password = decode(colon < 0 ? userInfo : userInfo.substring(colon + 1));
            }
            String path = parsed.getPath();
            if (path != null && path.length() > 1) {
                database = parseDatabase(path.substring(1));
            }
        }
        try {
            if (!clusterNodes.isEmpty()) {
                List<RedisEndpoint.Node> seeds = new ArrayList<>();
                for (String node : clusterNodes) {
                    seeds.add(node(node));
                }
                return new RedisEndpoint(seeds, true, 0, username, password, ssl, timeout);
            }
            return new RedisEndpoint(List.of(new RedisEndpoint.Node(host, port)), false, database, username, password,
                    ssl, timeout);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid " + PREFIX + ".*: " + e.getMessage(), e);
        }
    }

    private static URI parseUrl(String url) {
        try {
            URI uri = new URI(url);
            if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException(PREFIX + ".url must be redis://host:port or rediss://host:port,"
                        + " was " + withoutPassword(url));
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(PREFIX + ".url is not a URL: " + withoutPassword(url), e);
        }
    }

    private static int parseDatabase(String path) {
        try {
            return Integer.parseInt(path);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PREFIX + ".url must end with a database number, was /" + path, e);
        }
    }

    /** {@code host:port}, {@code [ipv6]:port}. */
    private static RedisEndpoint.Node node(String node) {
        int colon = node.lastIndexOf(':');
        if (colon <= 0 || colon == node.length() - 1) {
            throw new IllegalArgumentException(PREFIX + ".cluster.nodes entries are host:port, was '" + node + "'");
        }
        String host = node.substring(0, colon).trim();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return new RedisEndpoint.Node(host, Integer.parseInt(node.substring(colon + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PREFIX + ".cluster.nodes entries are host:port, was '" + node + "'", e);
        }
    }

    private static String withoutPassword(String url) {
        int at = url.lastIndexOf('@');
        int scheme = url.indexOf("://");
        return at > 0 && scheme > 0 && at > scheme ? url.substring(0, scheme + 3) + "***" + url.substring(at) : url;
    }

    private static String decode(String part) {
        return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
