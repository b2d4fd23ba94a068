package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.limits.MultiLimitLeases;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.RedisBucketStore;
import dev.tollgate.redis.RedisMultiLimitLeaseSource;
import dev.tollgate.redis.RedisTokenLeaseSource;
import dev.tollgate.redis.ScriptCalls;
import dev.tollgate.spring.lifecycle.BackgroundService;
import dev.tollgate.spring.lifecycle.BackgroundTask;
import dev.tollgate.spring.lifecycle.LifecyclePhase;
import dev.tollgate.spring.metrics.TollgateMeters;
import dev.tollgate.spring.settings.HotKeyProperties;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Token leases for hot keys ({@code tollgate.hot-keys.leases.*}, on by default): a key this instance
 * sees above a rate is served from batches of tokens taken in one Redis call, on the single-bucket
 * path ({@link LeasingBucketStore}) and on the multi-limit path ({@link MultiLimitLeases}: batches of
 * whole requests, each charged to every limit), with the same settings. With leases off, neither
 * leasing store nor their threads exist.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(TollgateSwitches.LeasesOn.class)
class HotKeyLeaseConfiguration {

    @Bean(destroyMethod = "close")
    LeasingBucketStore leasingBucketStore(RedisBucketStore redis, RedisTokenLeaseSource leaseSource,
                                          HotKeyProperties hotKeys, TollgateMeters meters) {
        LeasingBucketStore leasing = new LeasingBucketStore(redis, leaseSource, hotKeys.leases().policy(),
                MonotonicClock.system());
        FunctionCounter.builder("tollgate.leases.local.decisions", leasing, LeasingBucketStore::localDecisions)
                .description("Decisions served from a token lease held by this instance, without a Redis call")
                .register(meters.registry());
        FunctionCounter.builder("tollgate.leases.calls", leasing, LeasingBucketStore::leaseCalls)
                .description("Redis calls that took a batch of tokens for a hot key").register(meters.registry());
        FunctionCounter.builder("tollgate.leases.returns", leasing, LeasingBucketStore::giveBackCalls)
                .description("Redis calls that gave unspent leased tokens back").register(meters.registry());
        Gauge.builder("tollgate.leases.keys", leasing, LeasingBucketStore::trackedKeys)
                .description("Keys whose request rate this instance tracks for leasing").register(meters.registry());
        return leasing;
    }

    /** Leases on the multi-limit path: the same policy and clock, on {@code multi_limit.lua}'s states. */
    @Bean(destroyMethod = "close")
    MultiLimitLeases multiLimitLeases(MultiLimitScript multiLimitScript, ScriptCalls scriptCalls,
                                      HotKeyProperties hotKeys, TollgateMeters meters) {
        MultiLimitLeases leases = new MultiLimitLeases(new RedisMultiLimitLeaseSource(multiLimitScript, scriptCalls),
                hotKeys.leases().policy(), MonotonicClock.system());
        FunctionCounter.builder("tollgate.leases.multi.local.decisions", leases, MultiLimitLeases::localDecisions)
                .description("Multi-limit decisions served from a lease of pre-admitted requests, without a Redis call")
                .register(meters.registry());
        FunctionCounter.builder("tollgate.leases.multi.calls", leases, MultiLimitLeases::leaseCalls)
                .description("Redis calls that leased a batch of requests for a hot multi-limit charge set")
                .register(meters.registry());
        FunctionCounter.builder("tollgate.leases.multi.returns", leases, MultiLimitLeases::giveBackCalls)
                .description("Redis calls that gave unspent leased requests back to every limit")
                .register(meters.registry());
        Gauge.builder("tollgate.leases.multi.keys", leases, MultiLimitLeases::trackedKeys)
                .description("Multi-limit charge sets whose request rate this instance tracks for leasing")
                .register(meters.registry());
        return leases;
    }

    /** As {@link #leaseReturns}, for the multi-limit path's leases. */
    @Bean
    BackgroundService multiLimitLeaseReturns(MultiLimitLeases leases, HotKeyProperties hotKeys) {
        return leaseReturns("multiLimitLeaseReturns", "tollgate-multi-limit-lease-returns", hotKeys,
                leases::returnExpiredLeases, leases);
    }

    /**
     * Gives back leases of keys that went quiet, once per lease time-to-live; at stop, every lease
     * still held (the leasing store's close), while the connections and the heartbeat are still there.
     */
    @Bean
    BackgroundService leaseReturns(LeasingBucketStore leasing, HotKeyProperties hotKeys) {
        return leaseReturns("leaseReturns", "tollgate-lease-returns", hotKeys, leasing::returnExpiredLeases, leasing);
    }

    /**
     * Both paths' returns run alike: the sweep every TTL on a thread of its own, and at stop (in
     * {@link LifecyclePhase#WORK}) the thread ends first, so that no sweep runs while {@code store}
     * gives every lease back.
     */
    private static BackgroundService leaseReturns(String name, String threadName, HotKeyProperties hotKeys,
                                                  Runnable returnExpired, AutoCloseable store) {
        BackgroundTask returns = BackgroundTask.every(threadName, hotKeys.leases().ttl(), returnExpired);
        return BackgroundService.of(name, LifecyclePhase.WORK, returns::start, () -> {
            returns.close();
            store.close();
        });
    }
}
