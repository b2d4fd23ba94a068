package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.BucketStore;
import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RuleBook;
import dev.tollgate.core.SerialScheduler;
import dev.tollgate.core.ShardedBucketStore;
import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.LocalMultiLimitStore;
import dev.tollgate.core.limits.MultiLimitLeases;
import dev.tollgate.core.limits.RuleBookLimits;
import dev.tollgate.core.region.RegionalLimitBook;
import dev.tollgate.core.region.RegionalRuleBook;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.InstanceHeartbeat;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisConnector;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.filter.RateLimitFilter;
import dev.tollgate.spring.filter.RateLimitHeaders;
import dev.tollgate.spring.filter.TollgateRateLimiter;
import dev.tollgate.core.address.Cidr;
import dev.tollgate.core.address.ClientAddressResolver;
import dev.tollgate.spring.health.RateLimiterHealthIndicator;
import dev.tollgate.spring.identity.AuthFailureLimiter;
import dev.tollgate.spring.identity.BearerTenants;
import dev.tollgate.spring.identity.ClientAddresses;
import dev.tollgate.spring.identity.IdentityKeyResolvers;
import dev.tollgate.spring.identity.IdentityPolicies;
import dev.tollgate.spring.instances.HeartbeatStore;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.spring.instances.PostgresHeartbeats;
import dev.tollgate.spring.instances.RedisHeartbeats;
import dev.tollgate.spring.instances.SavedInstanceCount;
import dev.tollgate.spring.lifecycle.BackgroundService;
import dev.tollgate.spring.lifecycle.BackgroundTask;
import dev.tollgate.spring.lifecycle.LifecyclePhase;
import dev.tollgate.spring.limiter.DecisionListener;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.FailoverRateLimiter;
import dev.tollgate.spring.limiter.LimitEnforcer;
import dev.tollgate.spring.limiter.MultiLimitLimiter;
import dev.tollgate.spring.limiter.RedisCircuitBreaker;
import dev.tollgate.spring.limiter.RejectionLog;
import dev.tollgate.spring.localstate.LocalState;
import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.metrics.TollgateMeters;
import dev.tollgate.spring.postgres.DirectoryConnectionPool;
import dev.tollgate.spring.settings.FallbackProperties;
import dev.tollgate.spring.settings.HotKeyProperties;
import dev.tollgate.spring.settings.IdentityProperties;
import dev.tollgate.spring.settings.InvalidSettingException;
import dev.tollgate.spring.settings.JwtProperties;
import dev.tollgate.spring.settings.ObservabilityProperties;
import dev.tollgate.spring.settings.RedisEndpoint;
import dev.tollgate.spring.settings.RedisGuardProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import dev.tollgate.spring.tenant.TenantResolver;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the limiter: the Redis path and its local fallback, metrics, the global rate-limit filter
 * and the {@link TollgateRateLimiter} for Spring Cloud Gateway's {@code RequestRateLimiter}. Part of
 * {@link LimiterOnConfiguration}: none of it exists with {@code tollgate.enabled=false}.
 */
@Configuration(proxyBeanMethods = false)
class RateLimitingConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "redisCircuitBreaker")
    CircuitBreaker redisCircuitBreaker(RedisGuardProperties guard, TollgateMeters meters) {
        CircuitBreakerRegistry registry = RedisCircuitBreaker.registry(guard.circuitBreaker(), MonotonicClock.system());
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(meters.registry());
        return RedisCircuitBreaker.of(registry);
    }

    /**
     * N for the local fallback: heartbeats in Redis, then in PostgreSQL (with {@code source=database}),
     * then the count last learnt or saved in the local state; never below {@code tollgate.fallback.instances}.
     * Constructed only: {@link #heartbeats} starts and stops it.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LiveInstances liveInstances(InstanceHeartbeat heartbeat, FallbackProperties fallback,
                                RedisEndpoint redis, ObjectProvider<DirectoryConnectionPool> database,
                                ObjectProvider<LocalState> localState,
                                ObjectProvider<DirectoryRefresher> directoryRefresher, TollgateMeters meters) {
        List<HeartbeatStore> stores = new ArrayList<>();
        stores.add(new RedisHeartbeats(heartbeat, fallback.heartbeatTtl(), fallback.heartbeatInterval()));
        DirectoryConnectionPool pool = database.getIfAvailable();
        if (pool != null) {
            String fleet = fallback.fleet() != null ? fallback.fleet() : redis.address();
            DirectoryRefresher refresher = directoryRefresher.getIfAvailable();
            stores.add(new PostgresHeartbeats(pool.dataSource(), fleet, fallback.heartbeatTtl(),
                    fallback.heartbeatInterval(), refresher == null ? () -> true : refresher::schemaReady));
        }
        LocalStateDirectory folder = localState.getIfAvailable(LocalState::none).folder().orElse(null);
        LiveInstances instances = new LiveInstances(stores, folder == null ? null : new SavedInstanceCount(folder),
                fallback.instances(), fallback.heartbeatInterval(), fallback.heartbeatTtl(),
                SerialScheduler::daemonThread);
        Gauge.builder("tollgate.fallback.instances", instances, LiveInstances::count)
                .description("Instance count the local fallback divides limits by")
                .register(meters.registry());
        return instances;
    }

    /**
     * Puts this instance's heartbeats on at start and takes them off at stop ({@link LifecyclePhase#PRESENCE}:
     * after the work, before the connections close).
     */
    @Bean
    BackgroundService heartbeats(LiveInstances liveInstances) {
        return BackgroundService.of("heartbeats", LifecyclePhase.PRESENCE, liveInstances::start, liveInstances);
    }

    @Bean
    @ConditionalOnMissingBean
    LocalFallbackLimiter localFallbackLimiter(LiveInstances instances) {
        return new LocalFallbackLimiter(instances::count, MonotonicClock.system());
    }

    /** Drops full local buckets now and then, so the fallback's memory follows active tenants only. */
    @Bean
    BackgroundService fallbackEviction(LocalFallbackLimiter limiter, FallbackProperties fallback) {
        BackgroundTask eviction = BackgroundTask.every("tollgate-fallback-eviction", fallback.evictionInterval(),
                limiter::evictFullBuckets);
        return BackgroundService.of("fallbackEviction", LifecyclePhase.WORK, eviction::start, eviction);
    }

    /** The multi-limit path's local fallback: this instance's share of every limit while Redis cannot decide. */
    @Bean
    @ConditionalOnMissingBean
    LocalMultiLimitStore localMultiLimitStore(LiveInstances instances) {
        return new LocalMultiLimitStore(instances::count, WallClock.system());
    }

    /** Drops local multi-limit states that no longer matter, with the single-bucket fallback's interval. */
    @Bean
    BackgroundService multiLimitFallbackEviction(LocalMultiLimitStore store, FallbackProperties fallback) {
        BackgroundTask eviction = BackgroundTask.every("tollgate-multi-limit-eviction", fallback.evictionInterval(),
                store::evictExpired);
        return BackgroundService.of("multiLimitFallbackEviction", LifecyclePhase.WORK, eviction::start, eviction);
    }

    @Bean
    @ConditionalOnMissingBean
    MultiLimitLimiter multiLimitLimiter(MultiLimitScript multiLimitScript, LocalMultiLimitStore store,
                                        CircuitBreaker redisCircuitBreaker, DecisionMetrics metrics,
                                        ObjectProvider<MultiLimitLeases> leases) {
        return new MultiLimitLimiter(multiLimitScript, store, redisCircuitBreaker, metrics, leases.getIfAvailable());
    }

    @Bean
    @ConditionalOnMissingBean
    DecisionMetrics decisionMetrics(TollgateMeters meters, ObservabilityProperties observability) {
        return new DecisionMetrics(meters.registry(), observability.metrics().tenantTagSet());
    }

    /**
     * The chain a request's Redis decision goes down: its rule's shards (when split), then leases
     * (hot keys, when on), then one call per request to Redis, batched with the requests that arrive
     * with it.
     */
    @Bean
    ShardedBucketStore redisDecisions(RedisBucketStore redis, ObjectProvider<LeasingBucketStore> leasing,
                                      HotKeyProperties hotKeys) {
        LeasingBucketStore leases = leasing.getIfAvailable();
        BucketStore perKey = leases != null ? leases : redis;
        return new ShardedBucketStore(perKey, hotKeys.shards().secondChance());
    }

    @Bean
    @ConditionalOnMissingBean
    FailoverRateLimiter failoverRateLimiter(ShardedBucketStore redisDecisions, RedisBucketStore redis,
                                            ObjectProvider<LeasingBucketStore> leasing, HotKeyProperties hotKeys,
                                            RedisTokenLeaseSource charges, LocalFallbackLimiter fallback,
                                            CircuitBreaker redisCircuitBreaker, DecisionMetrics metrics) {
        // The same chain without leases, for the requests right after the fallback (FailoverRateLimiter).
        ShardedBucketStore unleased = leasing.getIfAvailable() == null ? redisDecisions
                : new ShardedBucketStore(redis, hotKeys.shards().secondChance());
        return new FailoverRateLimiter(redisDecisions, unleased, charges, fallback, redisCircuitBreaker, metrics);
    }

    @Bean
    RateLimiterHealthIndicator rateLimiterHealthIndicator(CircuitBreaker redisCircuitBreaker,
                                                          RedisConnector connector, LiveInstances instances) {
        return new RateLimiterHealthIndicator(redisCircuitBreaker, connector, instances);
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitHeaders rateLimitHeaders(ObservabilityProperties observability) {
        return new RateLimitHeaders(observability.headers().xRateLimit(), observability.headers().ietf());
    }

    @Bean
    @ConditionalOnMissingBean
    LimitEnforcer limitEnforcer(ObjectProvider<LimitBook> limitBook, RuleBook rules, FailoverRateLimiter limiter,
                                MultiLimitLimiter multiLimiter, DecisionMetrics metrics,
                                ObservabilityProperties observability, ObjectProvider<DecisionListener> listener) {
        return new LimitEnforcer(limitBook(limitBook.getIfAvailable(), rules), limiter, multiLimiter, metrics,
                new RejectionLog(observability.logging().rejectionsPerSecond(), MonotonicClock.system()),
                listener.getIfUnique(() -> DecisionListener.NONE), MonotonicClock.system());
    }

    /**
     * The limits the enforcer applies: the application's (or the directory's) {@link LimitBook} if there
     * is one, else every request on the single-bucket path with the rule book's rule
     * ({@link RuleBookLimits}). With several regions ({@code rules} is then the {@link RegionalRuleBook}),
     * the limits as written get this region's share ({@link RegionalLimitBook}: the single-bucket rule,
     * and every limit of a multi-limit request).
     */
    static LimitBook limitBook(LimitBook limitBook, RuleBook rules) {
        RegionalRuleBook regional = rules instanceof RegionalRuleBook r ? r : null;
        LimitBook written = limitBook != null ? limitBook
                : new RuleBookLimits(regional != null ? regional.global() : rules);
        return regional == null ? written : new RegionalLimitBook(written, regional.region(), regional.shares());
    }

    /** Every routed request, keyed by its API key: on unless {@code tollgate.global-filter.enabled=false}. */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(TollgateSwitches.GlobalFilterOn.class)
    RateLimitFilter rateLimitFilter(TollgateProperties properties, TenantResolver tenants, LimitEnforcer enforcer,
                                    RateLimitHeaders headers, IdentityProperties identity, ClientAddresses addresses,
                                    AuthFailureLimiter authFailures, ObjectProvider<BearerTenants> bearerTenants,
                                    JwtProperties jwt) {
        if (jwt.enabled() && bearerTenants.getIfAvailable() == null) {
            String setting = jwt.issuerUri() != null ? "tollgate.jwt.issuer-uri" : "tollgate.jwt.jwk-set-uri";
            throw new InvalidSettingException(setting, jwt.issuerUri() != null ? jwt.issuerUri() : jwt.jwkSetUri(),
                    setting + " is set, but bearer tokens need org.springframework.security:"
                            + "spring-security-oauth2-resource-server and spring-security-oauth2-jose on the class path");
        }
        return new RateLimitFilter(properties.apiKeyHeader(), tenants, enforcer, headers,
                new IdentityPolicies(identity.policies()), addresses,
                identity.authFailures().enabled() ? authFailures : null, bearerTenants.getIfAvailable());
    }

    /** The client address of requests, behind {@code tollgate.client-address.trusted-proxies} only. */
    @Bean
    @ConditionalOnMissingBean
    ClientAddresses clientAddresses(IdentityProperties identity) {
        IdentityProperties.ClientAddressProperties settings = identity.clientAddress();
        List<Cidr> proxies = settings.trustedProxies().stream().map(Cidr::parse).toList();
        boolean rfc7239 = settings.header() == IdentityProperties.ForwardedHeader.FORWARDED;
        return new ClientAddresses(new ClientAddressResolver(proxies, settings.ipv4Prefix(), settings.ipv6Prefix()),
                rfc7239 ? "Forwarded" : "X-Forwarded-For", rfc7239);
    }

    /** Failed authentication per client address, on this instance ({@code tollgate.auth-failures.*}). */
    @Bean
    @ConditionalOnMissingBean
    AuthFailureLimiter authFailureLimiter(IdentityProperties identity, TollgateMeters meters) {
        IdentityProperties.AuthFailureProperties settings = identity.authFailures();
        AuthFailureLimiter limiter = new AuthFailureLimiter(settings.limit(), settings.period(),
                settings.maxAddresses(), MonotonicClock.system());
        FunctionCounter.builder("tollgate.auth.failures.refused", limiter, AuthFailureLimiter::refused)
                .description("Requests answered 429 authentication-failures: their address was past its budget")
                .register(meters.registry());
        Gauge.builder("tollgate.auth.failures.addresses", limiter, AuthFailureLimiter::tracked)
                .description("Client addresses with failed authentication tracked on this instance")
                .register(meters.registry());
        return limiter;
    }

    /**
     * Forgets addresses whose failure budget has refilled, every period (at most once a second), so the
     * map holds the failing ones only.
     */
    @Bean
    BackgroundService authFailureEviction(AuthFailureLimiter limiter, IdentityProperties identity) {
        Duration every = identity.authFailures().period();
        BackgroundTask eviction = BackgroundTask.every("tollgate-auth-failure-eviction",
                every.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : every, limiter::evictRefilled);
        return BackgroundService.of("authFailureEviction", LifecyclePhase.WORK, eviction::start, eviction);
    }

    /**
     * For Spring Cloud Gateway's own {@code RequestRateLimiter} filter, by name only:
     * {@code #{@tollgateRateLimiter}}. Not a default candidate, so it never competes with the
     * application's own {@code RateLimiter} (or Spring Cloud Gateway's {@code redisRateLimiter}) for
     * injection by type: that filter's factory takes one {@code RateLimiter} by type as the limiter of
     * routes that name none, and those routes keep the one they had before Tollgate was added
     * ({@link RequestRateLimiterConfiguration}).
     */
    /**
     * For {@code RequestRateLimiter} routes, by name only ({@code key-resolver: "#{@tollgateClientAddressKeyResolver}"}):
     * callers limited by client address, as the global filter's anonymous callers. Not a default
     * candidate, so Spring Cloud Gateway's own default key resolver and the application's are left as they were.
     */
    @Bean(name = IdentityKeyResolvers.CLIENT_ADDRESS, defaultCandidate = false)
    KeyResolver tollgateClientAddressKeyResolver(ClientAddresses addresses) {
        return IdentityKeyResolvers.clientAddress(addresses);
    }

    /** For {@code RequestRateLimiter} routes, by name only: the tenant of the API key, as the global filter's. */
    @Bean(name = IdentityKeyResolvers.API_KEY, defaultCandidate = false)
    KeyResolver tollgateApiKeyResolver(TollgateProperties properties, TenantResolver tenants) {
        return IdentityKeyResolvers.apiKey(properties.apiKeyHeader(), tenants);
    }

    @Bean(name = TollgateRateLimiter.BEAN_NAME, defaultCandidate = false)
    @ConditionalOnMissingBean(TollgateRateLimiter.class)
    TollgateRateLimiter tollgateRateLimiter(LimitEnforcer enforcer, RateLimitHeaders headers) {
        return new TollgateRateLimiter(enforcer, headers);
    }
}
