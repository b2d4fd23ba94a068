package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.SerialScheduler;
import dev.tollgate.redis.DedicatedRedisClient;
import dev.tollgate.redis.InstanceHeartbeat;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisConnector;
import dev.tollgate.redis.RedisLane;
import dev.tollgate.redis.RedisLink;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.redis.ScriptCalls;
import dev.tollgate.spring.lifecycle.BackgroundService;
import dev.tollgate.spring.lifecycle.LifecyclePhase;
import dev.tollgate.spring.limiter.CircuitBreakerGate;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.settings.RedisConnectionProperties;
import dev.tollgate.spring.settings.RedisEndpoint;
import dev.tollgate.spring.settings.RedisGuardProperties;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.netty.ReactorNetty;
import reactor.netty.resources.LoopResources;

/**
 * Tollgate's Redis connection and what runs on it. Redis is configured with Spring Boot's standard
 * {@code spring.data.redis.*} properties (host, port, credentials, database, SSL, cluster nodes), read
 * by Tollgate itself ({@link RedisConnectionProperties}: no Spring Data Redis needed), and Tollgate opens
 * its own client on them ({@link DedicatedRedisClient}: on the gateway's HTTP event loops, fail-fast
 * while disconnected, quick reconnects), so that its settings never change an application's own Redis
 * client. Redis need not be up when the gateway starts.
 */
@Configuration(proxyBeanMethods = false)
class RedisStoreConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RedisStoreConfiguration.class);

    private static final int WARM_UP_CALLS = 20;

    /** From {@code spring.data.redis.*}; an application's own bean of this type (dev mode's) replaces it. */
    @Bean
    @ConditionalOnMissingBean
    RedisEndpoint tollgateRedisEndpoint(Environment environment) {
        return RedisConnectionProperties.endpoint(environment);
    }

    /**
     * On the gateway's own HTTP event loops when it can (one connection per loop: a request's Redis
     * call is written and answered on the thread that serves the request), else on one I/O thread of
     * its own.
     */
    @Bean(destroyMethod = "close")
    DedicatedRedisClient tollgateRedisClient(RedisEndpoint endpoint, RedisGuardProperties guard,
                                             ObjectProvider<ReactorResourceFactory> reactorResources) {
        DedicatedRedisClient.Loops loops = DedicatedRedisClient.Loops.of(gatewayLoops(reactorResources));
        log.info("Tollgate's Redis connections to {} run on {}", endpoint, loops.shared()
                ? "the gateway's HTTP event loops (one connection per loop)" : "an I/O thread of their own");
        DedicatedRedisClient client = endpoint.cluster()
                ? DedicatedRedisClient.cluster(endpoint.uris(), endpoint.commandTimeout(), guard.reconnectMaxDelay(),
                        loops)
                : DedicatedRedisClient.standalone(endpoint.uris().get(0), endpoint.commandTimeout(),
                        guard.reconnectMaxDelay(), loops);
        int cores = Runtime.getRuntime().availableProcessors();
        if (client.onGatewayLoops() && client.connections() > cores) {
            // Reactor Netty runs at least 4 loops whatever the cores; decisions are batched per loop.
            log.info("The gateway's HTTP server runs {} event loops on {} cores: Redis calls are batched per loop,"
                    + " so on this machine fewer, fuller batches cost less CPU; start the JVM with"
                    + " -D{}={} (what the Tollgate gateway application does by default)",
                    client.connections(), cores, ReactorNetty.IO_WORKER_COUNT, cores);
        }
        return client;
    }

    /** The event loops Reactor Netty's HTTP server runs on (Spring Boot's ReactorResourceFactory), if any. */
    private static EventLoopGroup gatewayLoops(ObjectProvider<ReactorResourceFactory> reactorResources) {
        ReactorResourceFactory factory = reactorResources.getIfAvailable();
        if (factory == null || factory.getLoopResources() == null) {
            return null;
        }
        return factory.getLoopResources().onServer(LoopResources.DEFAULT_NATIVE);
    }

    /** Constructed only: it connects when {@link #redisConnection} starts. */
    @Bean(destroyMethod = "close")
    RedisConnector redisConnector(DedicatedRedisClient tollgateRedisClient, RedisEndpoint endpoint,
                                  RedisGuardProperties guard) {
        return new RedisConnector(tollgateRedisClient::connect, tollgateRedisClient.connections(),
                guard.connectRetryDelay(), link -> warmUp(link, endpoint),
                SerialScheduler.daemonThread("tollgate-redis-connector"));
    }

    /**
     * Connects to Redis at start, first of Tollgate's components, and waits up to
     * {@code tollgate.redis.startup-wait} for the first attempt to settle, so that when Redis is there
     * the first requests are decided by it; closes the connections at stop, last.
     */
    @Bean
    BackgroundService redisConnection(RedisConnector redisConnector, RedisGuardProperties guard) {
        return BackgroundService.of("redisConnection", LifecyclePhase.CONNECTIONS, () -> {
            redisConnector.start();
            if (!redisConnector.awaitFirstOutcome(guard.startupWait())) {
                log.warn("Starting without Redis (not connected within tollgate.redis.startup-wait={} or refused);"
                        + " decisions use the local fallback until it connects", guard.startupWait());
            }
        }, redisConnector);
    }

    /**
     * Every script call, with the reply deadline {@code tollgate.redis.timeout}, guarded by the
     * circuit breaker, timed by the latency metric.
     */
    @Bean
    ScriptCalls scriptCalls(RedisConnector redisConnector, RedisGuardProperties guard, DecisionMetrics metrics,
                            CircuitBreaker redisCircuitBreaker) {
        ScriptCalls calls = new ScriptCalls(redisConnector, guard.timeout(), MonotonicClock.system());
        calls.observe(metrics.redisCalls());
        calls.guard(new CircuitBreakerGate(redisCircuitBreaker));
        return calls;
    }

    @Bean
    RedisBucketStore redisBucketStore(ScriptCalls scriptCalls, RedisGuardProperties guard) {
        return new RedisBucketStore(scriptCalls, guard.batchWaitTurns());
    }

    /**
     * Decides the multi-limit path's requests, every limit of one in one call, the requests of a loop
     * turn batched as the single-bucket store's ({@code tollgate.redis.batch-wait-turns}); a tenant's
     * states in one key.
     */
    @Bean
    MultiLimitScript multiLimitScript(ScriptCalls scriptCalls, RedisGuardProperties guard) {
        return new MultiLimitScript(scriptCalls, MultiLimitScript.DEFAULT_LAYOUT, guard.batchWaitTurns());
    }

    /** Takes and gives back batches of tokens of the same buckets: leases, and fallback charges. */
    @Bean
    RedisTokenLeaseSource redisTokenLeaseSource(ScriptCalls scriptCalls) {
        return new RedisTokenLeaseSource(scriptCalls);
    }

    /**
     * Beats with the reply deadline of Tollgate's other background Redis commands
     * ({@code spring.data.redis.timeout}), outside the requests' circuit breaker and metrics.
     */
    @Bean
    InstanceHeartbeat instanceHeartbeat(RedisConnector redisConnector, RedisEndpoint endpoint) {
        return new InstanceHeartbeat(redisConnector, InstanceHeartbeat.DEFAULT_KEY, endpoint.commandTimeout());
    }

    /**
     * Loads the scripts as soon as a call can be made and runs the bucket script a few times on a
     * bucket of its own, through a bucket store like the requests' (but outside their circuit breaker
     * and metrics), so that the first requests meet neither NOSCRIPT nor cold code on the Redis side.
     */
    private static CompletionStage<?> warmUp(RedisLink link, RedisEndpoint endpoint) {
        RedisLane lane = link.laneOrNull();
        if (lane == null) {
            return CompletableFuture.completedFuture(null); // the connection went again: nothing to warm
        }
        RedisClusterAsyncCommands<String, String> redis = lane.commands();
        RedisBucketStore store = new RedisBucketStore(
                new ScriptCalls(link, endpoint.commandTimeout(), MonotonicClock.system()));
        BucketKey key = new BucketKey("tollgate-warm-up", "warm-up");
        BucketLimits limits = RateLimitRule.of(1, 1000).limits();
        CompletionStage<?> chain = redis.scriptLoad(RedisBucketStore.SCRIPT.source())
                .thenCompose(sha -> redis.scriptLoad(RedisTokenLeaseSource.leaseScript().source()))
                .thenCompose(sha -> redis.scriptLoad(MultiLimitScript.SCRIPT.source()));
        for (int i = 0; i < WARM_UP_CALLS; i++) {
            chain = chain.thenCompose(ignored -> store.tryAcquire(key, limits));
        }
        return chain;
    }
}
