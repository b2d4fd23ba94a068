package dev.tollgate.gateway.config;

import dev.tollgate.core.BucketStore;
import dev.tollgate.redis.RedisBucketStore;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis bucket store, on a Lettuce connection of its own. The Lettuce client (resources, client
 * options, SSL, cluster topology) is the one Spring Boot builds from the standard
 * {@code spring.data.redis.*} properties, so Redis is configured the way Spring users expect.
 */
@Configuration(proxyBeanMethods = false)
class RedisStoreConfiguration {

    @Bean(destroyMethod = "close")
    StatefulConnection<String, String> bucketStoreConnection(LettuceConnectionFactory factory,
                                                            DataRedisConnectionDetails details) {
        AbstractRedisClient client = factory.getRequiredNativeClient();
        if (client instanceof RedisClusterClient cluster) {
            return cluster.connect(StringCodec.UTF8);
        }
        if (details.getSentinel() != null) {
            throw new IllegalStateException("Redis Sentinel is not supported by Tollgate's bucket store; "
                    + "use a standalone server (spring.data.redis.host/port) or a cluster "
                    + "(spring.data.redis.cluster.nodes)");
        }
        return ((RedisClient) client).connect(StringCodec.UTF8, standaloneUri(details));
    }

    @Bean
    BucketStore bucketStore(StatefulConnection<String, String> bucketStoreConnection) {
        if (bucketStoreConnection instanceof StatefulRedisClusterConnection<String, String> cluster) {
            return new RedisBucketStore(cluster.async());
        }
        return new RedisBucketStore(((StatefulRedisConnection<String, String>) bucketStoreConnection).async());
    }

    private static RedisURI standaloneUri(DataRedisConnectionDetails details) {
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        RedisURI.Builder uri = RedisURI.builder()
                .withHost(standalone.getHost())
                .withPort(standalone.getPort())
                .withDatabase(standalone.getDatabase())
                .withSsl(details.getSslBundle() != null);
        if (details.getPassword() != null) {
            if (details.getUsername() != null) {
                uri.withAuthentication(details.getUsername(), details.getPassword().toCharArray());
            } else {
                uri.withPassword(details.getPassword().toCharArray());
            }
        }
        return uri.build();
    }
}
