package dev.tollgate.gateway.config;

import dev.tollgate.core.DaemonThreads;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.ShardedBucketStore;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RuleBook;
import dev.tollgate.gateway.filter.RateLimitFilter;
import dev.tollgate.gateway.filter.RateLimitHeaders;
import dev.tollgate.gateway.filter.RejectionLog;
import dev.tollgate.gateway.limiter.DecisionMetrics;
import dev.tollgate.gateway.limiter.FailoverRateLimiter;
import dev.tollgate.gateway.limiter.LiveInstances;
import dev.tollgate.gateway.limiter.RateLimiterHealthIndicator;
import dev.tollgate.gateway.tenant.TenantResolver;
import dev.tollgate.redis.InstanceHeartbeat;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisConnector;
import dev.tollgate.redis.RedisTokenLeaseSource;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the rate-limit filter: rules, tenants, the Redis path and its local fallback. With
 * {@code tollgate.enabled=false} none of it exists (nor does {@link RedisStoreConfiguration}): the
 * gateway forwards without limiting, opens no Redis connection, and, above all, sends no heartbeat,
 * so it is not counted among the instances the local fallback divides limits by. The benchmark's
 * "no limiter" baseline is this very application with the switch off.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "tollgate.enabled", havingValue = "true", matchIfMissing = true)
class RateLimitingConfiguration {

    @Bean
    CircuitBreaker redisCircuitBreaker(RedisGuardProperties guard, MeterRegistry meters) {
        RedisGuardProperties.CircuitBreakerProperties cb = guard.circuitBreaker();
        CircuitBreakerConfig config = CircuitBreakerConfig.custom()
                .failureRateThreshold(cb.failureRateThreshold())
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(cb.slidingWindowSize())
                .minimumNumberOfCalls(cb.minimumNumberOfCalls())
                .waitDurationInOpenState(cb.waitInOpenState())
                .permittedNumberOfCallsInHalfOpenState(cb.permittedCallsInHalfOpenState())
                .build();
        CircuitBreakerRegistry registry = CircuitBreakerRegistry.of(config);
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(meters);
        return registry.circuitBreaker("redis");
    }

    @Bean(destroyMethod = "close")
    LiveInstances liveInstances(InstanceHeartbeat heartbeat, FallbackProperties fallback, MeterRegistry meters) {
        LiveInstances instances = new LiveInstances(heartbeat, fallback.heartbeatInterval(), fallback.heartbeatTtl(),
                fallback.instances());
        instances.start();
        Gauge.builder("tollgate.fallback.instances", instances, LiveInstances::count)
                .description("Instance count the local fallback divides limits by")
                .register(meters);
        return instances;
    }

    @Bean
    LocalFallbackLimiter localFallbackLimiter(LiveInstances instances) {
        return new LocalFallbackLimiter(instances::count, MonotonicClock.system());
    }

    /** Drops full local buckets now and then, so the fallback's memory follows active tenants only. */
    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService fallbackEviction(LocalFallbackLimiter limiter, FallbackProperties fallback) {
        ScheduledExecutorService executor = DaemonThreads.scheduler("tollgate-fallback-eviction");
        long period = fallback.evictionInterval().toMillis();
        executor.scheduleWithFixedDelay(limiter::evictFullBuckets, period, period, TimeUnit.MILLISECONDS);
        return executor;
    }

    @Bean
    DecisionMetrics decisionMetrics(MeterRegistry meters, ObservabilityProperties observability) {
        return new DecisionMetrics(meters, observability.metrics().tenantTagSet());
    }

    /**
     * Hot keys are leased (one Redis call per batch instead of per request) when enabled; cold keys
     * keep one call per request.
     */
    @Bean(destroyMethod = "close")
    LeasingBucketStore leasingBucketStore(RedisBucketStore redis, RedisTokenLeaseSource leaseSource,
                                          HotKeyProperties hotKeys, MeterRegistry meters) {
        LeasePolicy policy = hotKeys.leases().policy();
        LeasingBucketStore leasing = new LeasingBucketStore(redis,
                leaseSource, policy, MonotonicClock.system());
        FunctionCounter.builder("tollgate.leases.local.decisions", leasing, LeasingBucketStore::localDecisions)
                .description("Decisions served from a token lease held by this instance, without a Redis call")
                .register(meters);
        FunctionCounter.builder("tollgate.leases.calls", leasing, LeasingBucketStore::leaseCalls)
                .description("Redis calls that took a batch of tokens for a hot key").register(meters);
        FunctionCounter.builder("tollgate.leases.returns", leasing, LeasingBucketStore::giveBackCalls)
                .description("Redis calls that gave unspent leased tokens back").register(meters);
        Gauge.builder("tollgate.leases.keys", leasing, LeasingBucketStore::trackedKeys)
                .description("Keys whose request rate this instance tracks for leasing").register(meters);
        return leasing;
    }

    /** Gives back leases of keys that went quiet, once per lease time-to-live. */
    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService leaseReturns(LeasingBucketStore leasing, HotKeyProperties hotKeys) {
        ScheduledExecutorService executor = DaemonThreads.scheduler("tollgate-lease-returns");
        long period = hotKeys.leases().ttl().toMillis();
        executor.scheduleWithFixedDelay(leasing::returnExpiredLeases, period, period, TimeUnit.MILLISECONDS);
        return executor;
    }

    @Bean
    FailoverRateLimiter failoverRateLimiter(RedisBucketStore redis, RedisTokenLeaseSource leaseSource,
                                            LeasingBucketStore leasing, RuleBook rules,
                                            HotKeyProperties hotKeys, LocalFallbackLimiter fallback,
                                            CircuitBreaker redisCircuitBreaker, RedisGuardProperties guard,
                                            DecisionMetrics metrics) {
        BucketStore perKey = hotKeys.leases().enabled() ? leasing : redis;
        // A rule with shards > 1 is split over sub-buckets; shards are looked up per request.
        BucketStore store = new ShardedBucketStore(perKey,
                key -> rules.ruleFor(key.tenant(), key.route()).shards(), hotKeys.shards().secondChance());
        return new FailoverRateLimiter(store, leaseSource, fallback,
                redisCircuitBreaker, guard.timeout(), metrics);
    }

    @Bean
    RateLimiterHealthIndicator rateLimiterHealthIndicator(CircuitBreaker redisCircuitBreaker,
                                                          RedisConnector connector, LiveInstances instances) {
        return new RateLimiterHealthIndicator(redisCircuitBreaker, connector, instances);
    }

    @Bean
    RateLimitFilter rateLimitFilter(TollgateProperties properties, TenantResolver tenants, RuleBook rules,
                                    FailoverRateLimiter limiter, DecisionMetrics metrics,
                                    ObservabilityProperties observability) {
        return new RateLimitFilter(properties.apiKeyHeader(), tenants, rules, limiter, metrics,
                new RateLimitHeaders(observability.headers().xRateLimit(), observability.headers().ietf()),
                new RejectionLog(observability.logging().rejectionsPerSecond(), MonotonicClock.system()));
    }
}
