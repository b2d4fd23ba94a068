package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.redis.InstanceHeartbeat;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RecommendedClusterClientOptions;
import dev.tollgate.redis.RedisConnector;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Tollgate's Redis connection and what runs on it. The Lettuce client (resources, client options,
 * SSL, cluster topology) is the one Spring Boot builds from the standard {@code spring.data.redis.*}
 * properties, so Redis is configured the way Spring users expect; Tollgate opens its own connection
 * on it, without requiring Redis to be up at start.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "tollgate.enabled", havingValue = "true", matchIfMissing = true)
class RedisStoreConfiguration {

    private static final int WARM_UP_CALLS = 20;

    /**
     * Fail fast while disconnected instead of queueing commands until Lettuce reconnects: a queued
     * decision would only time out, and the circuit breaker needs to see the failures.
     */
    @Bean
    LettuceClientOptionsBuilderCustomizer tollgateClientOptions() {
        return options -> {
            options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
            if (options instanceof ClusterClientOptions.Builder cluster) {
                // Follow failovers: adaptive refresh on every trigger plus a periodic one (Lettuce
                // refreshes nothing by default).
                cluster.topologyRefreshOptions(RecommendedClusterClientOptions.defaults().toClientOptions()
                        .getTopologyRefreshOptions());
            }
        };
    }

    /** Reconnect quickly after an outage: exponential back-off capped at a second by default. */
    @Bean
    ClientResourcesBuilderCustomizer tollgateReconnectDelay(RedisGuardProperties guard) {
        return resources -> resources.reconnectDelay(
                Delay.exponential(Duration.ofMillis(10), guard.reconnectMaxDelay(), 2, TimeUnit.MILLISECONDS));
    }

    @Bean(destroyMethod = "close")
    RedisConnector redisConnector(LettuceConnectionFactory factory, DataRedisConnectionDetails details,
                                  RedisGuardProperties guard) {
        AbstractRedisClient client = factory.getRequiredNativeClient();
        RedisConnector connector;
        if (client instanceof RedisClusterClient cluster) {
            // The asynchronous connect needs the topology first (the blocking one loads it itself).
            connector = new RedisConnector(() -> cluster.refreshPartitionsAsync()
                    .thenCompose(topology -> cluster.connectAsync(StringCodec.UTF8)),
                    guard.connectRetryDelay(), RedisStoreConfiguration::warmUp);
        } else {
            if (details.getSentinel() != null) {
                throw new IllegalStateException("Redis Sentinel is not supported by Tollgate's bucket store; "
                        + "use a standalone server (spring.data.redis.host/port) or a cluster "
                        + "(spring.data.redis.cluster.nodes)");
            }
            RedisURI uri = standaloneUri(details);
            connector = new RedisConnector(() -> ((RedisClient) client).connectAsync(StringCodec.UTF8, uri),
                    guard.connectRetryDelay(), RedisStoreConfiguration::warmUp);
        }
        connector.start();
        return connector;
    }

    @Bean
    RedisBucketStore redisBucketStore(RedisConnector redisConnector) {
        return new RedisBucketStore(redisConnector::commandsOrNull);
    }

    /** Takes and gives back batches of tokens of the same buckets: leases, and fallback charges. */
    @Bean
    RedisTokenLeaseSource redisTokenLeaseSource(RedisConnector redisConnector) {
        return new RedisTokenLeaseSource(redisConnector::commandsOrNull);
    }

    @Bean
    InstanceHeartbeat instanceHeartbeat(RedisConnector redisConnector) {
        return new InstanceHeartbeat(redisConnector::commandsOrNull, InstanceHeartbeat.DEFAULT_KEY);
    }

    /**
     * Loads the token-bucket script as soon as we connect and runs it a few times on a bucket of its
     * own, so that neither the first requests nor a cold JIT push a decision past the short timeout.
     */
    private static void warmUp(RedisScriptingAsyncCommands<String, String> redis) {
        RedisBucketStore store = new RedisBucketStore(redis);
        BucketKey key = new BucketKey("tollgate-warm-up", "warm-up");
        BucketLimits limits = RateLimitRule.of(1, 1000).limits();
        CompletionStage<?> chain = redis.scriptLoad(store.script().source());
        for (int i = 0; i < WARM_UP_CALLS; i++) {
            chain = chain.thenCompose(ignored -> store.tryAcquire(key, limits));
        }
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
