package dev.tollgate.spring.settings;

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
public final class RedisConnectionProperties {

    static final String PREFIX = "spring.data.redis";
    private static final int DEFAULT_PORT = 6379;

    private RedisConnectionProperties() {
    }

    /**
     * The endpoint {@code spring.data.redis.*} describes; a bad value stops the start with
     * {@link InvalidSettingException}, naming the setting and its value (a URL without its password,
     * never a password).
     */
    public static RedisEndpoint endpoint(Environment environment) {
        Binder binder = Binder.get(environment);
        String sentinelMaster = binder.bind(PREFIX + ".sentinel.master", String.class).orElse(null);
        List<String> sentinelNodes = binder.bind(PREFIX + ".sentinel.nodes", Bindable.listOf(String.class))
                .orElse(List.of());
        if (sentinelMaster != null || !sentinelNodes.isEmpty()) {
            String setting = PREFIX + (sentinelMaster != null ? ".sentinel.master" : ".sentinel.nodes");
            throw new InvalidSettingException(setting, sentinelMaster != null ? sentinelMaster
                    : String.join(",", sentinelNodes), "Redis Sentinel (" + PREFIX + ".sentinel.*) is not supported"
                    + " by Tollgate's bucket store",
                    "Remove " + PREFIX + ".sentinel.*, and give Tollgate a standalone server (" + PREFIX + ".url, or "
                            + PREFIX + ".host and .port) or a Redis Cluster (" + PREFIX + ".cluster.nodes).");
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

        if (timeout.isNegative() || timeout.isZero()) {
            throw new InvalidSettingException(PREFIX + ".timeout", String.valueOf(timeout), PREFIX + ".timeout"
                    + " must be positive, was " + timeout);
        }
        String hostSetting = PREFIX + ".host";
        String portSetting = PREFIX + ".port";
        String databaseSetting = PREFIX + ".database";
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
                database = parseDatabase(url, path.substring(1));
            }
            hostSetting = portSetting = databaseSetting = PREFIX + ".url";
        }
        // A cluster takes its credentials and TLS from the URL too, its nodes from cluster.nodes.
        if (!clusterNodes.isEmpty()) {
            List<RedisEndpoint.Node> seeds = new ArrayList<>();
            for (String node : clusterNodes) {
                seeds.add(node(node));
            }
            return new RedisEndpoint(seeds, true, 0, username, password, ssl, timeout);
        }
        String quotedUrl = url == null ? null : withoutPassword(url);
        if (host == null || host.isBlank()) {
            throw new InvalidSettingException(hostSetting, url == null ? host : quotedUrl, hostSetting
                    + " must name a Redis host, was '" + (url == null ? host : quotedUrl) + "'");
        }
        if (port < 1 || port > 65_535) {
            throw new InvalidSettingException(portSetting, url == null ? Integer.toString(port) : quotedUrl,
                    portSetting + " must give a port between 1 and 65535, was " + port);
        }
        if (database < 0) {
            throw new InvalidSettingException(databaseSetting, url == null ? Integer.toString(database) : quotedUrl,
                    databaseSetting + " must give a database number of 0 or more, was " + database);
        }
        return new RedisEndpoint(List.of(new RedisEndpoint.Node(host, port)), false, database, username, password,
                ssl, timeout);
    }

    private static URI parseUrl(String url) {
        String quoted = withoutPassword(url);
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new InvalidSettingException(PREFIX + ".url", quoted, PREFIX + ".url is not a URL: '" + quoted + "'");
        }
        if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new InvalidSettingException(PREFIX + ".url", quoted, PREFIX + ".url must be redis://host:port"
                    + " or rediss://host:port (with an optional user:password@ and /database), was '" + quoted + "'");
        }
        return uri;
    }

    private static int parseDatabase(String url, String path) {
        try {
            return Integer.parseInt(path);
        } catch (NumberFormatException e) {
            String quoted = withoutPassword(url);
            throw new InvalidSettingException(PREFIX + ".url", quoted, PREFIX + ".url must end with a database"
                    + " number, was /" + path + " in '" + quoted + "'");
        }
    }

    /** {@code host:port}, {@code [ipv6]:port}. */
    private static RedisEndpoint.Node node(String node) {
        int colon = node.lastIndexOf(':');
        String host = colon <= 0 ? "" : node.substring(0, colon).trim();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = colon <= 0 ? -1 : Integer.parseInt(node.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isBlank() || port < 1 || port > 65_535) {
            throw new InvalidSettingException(PREFIX + ".cluster.nodes", node, PREFIX + ".cluster.nodes entries"
                    + " are host:port with a port between 1 and 65535, was '" + node + "'");
        }
        return new RedisEndpoint.Node(host, port);
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
