package dev.tollgate.spring.autoconfigure;

import java.util.stream.Collectors;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * The Redis an instance uses, written the same way by every instance configured alike: the default
 * name under which instances count each other in PostgreSQL ({@code tollgate.fallback.fleet}), since
 * the instances that share a Redis are the ones that share its buckets. Never holds a credential.
 */
final class RedisAddress {

    private RedisAddress() {
    }

    static String of(DataRedisConnectionDetails details) {
        DataRedisConnectionDetails.Cluster cluster = details.getCluster();
        if (cluster != null) {
            return "redis-cluster://" + cluster.getNodes().stream()
                    .map(node -> node.host() + ":" + node.port())
                    .sorted()
                    .collect(Collectors.joining(","));
        }
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        return "redis://" + standalone.getHost() + ":" + standalone.getPort() + "/" + standalone.getDatabase();
    }
}
