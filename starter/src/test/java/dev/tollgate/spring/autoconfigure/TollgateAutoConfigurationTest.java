package dev.tollgate.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;


import dev.tollgate.core.LeasingBucketStore;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.MultiLimitLeases;
import dev.tollgate.redis.DedicatedRedisClient;
import dev.tollgate.redis.RedisConnector;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.filter.RateLimitFilter;
import dev.tollgate.spring.filter.TollgateRateLimiter;
import dev.tollgate.spring.filter.UnlimitedRateLimiter;
import dev.tollgate.spring.health.RulesReadinessIndicator;
import dev.tollgate.spring.lifecycle.BackgroundService;
import dev.tollgate.spring.lifecycle.LifecyclePhase;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.FailoverRateLimiter;
import dev.tollgate.spring.limiter.LimitEnforcer;
import dev.tollgate.spring.localstate.LocalState;
import dev.tollgate.spring.postgres.DirectoryConnectionPool;
import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.spring.tenant.TenantResolver;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.core.IntervalFunction;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import dev.tollgate.spring.identity.IdentityKeyResolvers;
import java.net.InetSocketAddress;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's auto-configuration: what it provides, its switches, and how it backs off. */
class TollgateAutoConfigurationTest {

    private static RedisServer redis;
    private static ApplicationContextRunner runner;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TollgateAutoConfiguration.class))
                .withUserConfiguration(Meters.class)
                .withPropertyValues("spring.data.redis.port=" + redis.port(), "tollgate.source=static");
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Configuration(proxyBeanMethods = false)
    static class Meters {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Test
    void providesTheGlobalFilterAndTheRateLimiterForRequestRateLimiter() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(RateLimitFilter.class);
            assertThat(context).hasSingleBean(LimitEnforcer.class);
            assertThat(context).hasSingleBean(FailoverRateLimiter.class);
            assertThat(context).hasSingleBean(RedisConnector.class);
            assertThat(context.getBean(TollgateRateLimiter.BEAN_NAME)).isInstanceOf(TollgateRateLimiter.class);
        });
    }

    @Test
    void keyResolversForRequestRateLimiterAreThereByNameOnlyAndResolveTheFilterIdentities() {
        runner.withPropertyValues("tollgate.client-address.trusted-proxies=10.0.0.0/8").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBeanProvider(KeyResolver.class).getIfUnique()).as("no default candidate").isNull();
            KeyResolver byAddress = context.getBean(IdentityKeyResolvers.CLIENT_ADDRESS, KeyResolver.class);
            MockServerWebExchange proxied = MockServerWebExchange.from(MockServerHttpRequest.get("/x")
                    .remoteAddress(new InetSocketAddress("10.0.0.5", 4711))
                    .header("X-Forwarded-For", "6.6.6.6, 2001:db8:1:2::99"));
            assertThat(byAddress.resolve(proxied).block()).isEqualTo("anon:2001:db8:1:2::/64");
            MockServerWebExchange direct = MockServerWebExchange.from(MockServerHttpRequest.get("/x")
                    .remoteAddress(new InetSocketAddress("198.51.100.7", 4711)).header("X-Forwarded-For", "6.6.6.6"));
            assertThat(byAddress.resolve(direct).block()).isEqualTo("anon:198.51.100.7/32");
            KeyResolver byKey = context.getBean(IdentityKeyResolvers.API_KEY, KeyResolver.class);
            assertThat(byKey.resolve(MockServerWebExchange.from(MockServerHttpRequest.get("/x").header("X-Api-Key", "shop-a")))
                    .block()).isEqualTo("shop-a");
            assertThat(byKey.resolve(MockServerWebExchange.from(MockServerHttpRequest.get("/x"))).block()).isNull();
        });
    }

    @Test
    void theStaticSourceProvidesItsPlansAsTheLimitBook() {
        runner.withPropertyValues("tollgate.plans.free[0].name=day", "tollgate.plans.free[0].scope=tenant",
                "tollgate.plans.free[0].quota=5", "tollgate.plans.free[0].period=day",
                "tollgate.tenant-plans.shop-a=free").run(context -> {
            assertThat(context).hasNotFailed();
            LimitBook limits = context.getBean(LimitBook.class);
            assertThat(limits.limitsFor("shop-a", "r").limits()).extracting(a -> a.limit().name()).containsExactly("day");
            assertThat(limits.limitsFor("shop-b", "r").singleBucket())
                    .isEqualTo(context.getBean(RuleBook.class).ruleFor("shop-b", "r"));
        });
    }

    @Test
    void theGlobalFilterCanBeSwitchedOffLeavingTheRateLimiter() {
        runner.withPropertyValues("tollgate.global-filter.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RateLimitFilter.class);
            assertThat(context).hasSingleBean(TollgateRateLimiter.class);
        });
    }

    @Test
    void switchedOffThereIsNoLimiterAndNoRedisConnection() {
        runner.withPropertyValues("tollgate.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(RateLimitFilter.class);
            assertThat(context).doesNotHaveBean(TollgateRateLimiter.class);
            // What routes name stays, admitting everything.
            assertThat(context.getBean(TollgateRateLimiter.BEAN_NAME)).isInstanceOf(UnlimitedRateLimiter.class);
            assertThat(context).doesNotHaveBean(FailoverRateLimiter.class);
            assertThat(context).doesNotHaveBean(RedisConnector.class);
        });
    }

    @Test
    void switchedOffItReadsNoRulesOrKeysSoNeedsNoDatabase() {
        runner.withPropertyValues("tollgate.enabled=false", "tollgate.source=database",
                "spring.datasource.url=jdbc:postgresql://127.0.0.1:" + FreePort.find() + "/tollgate").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DirectoryConnectionPool.class);
            assertThat(context).doesNotHaveBean(DirectoryRefresher.class);
            assertThat(context).doesNotHaveBean(Directory.class);
            assertThat(context).doesNotHaveBean(LocalState.class);
            // The readiness contributor the application's group names is still there, and up.
            assertThat(context.getBean("rulesHealthIndicator", RulesReadinessIndicator.class).health().getStatus())
                    .isEqualTo(Status.UP);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        static final RuleBook RULES = (tenant, route) -> RateLimitRule.of(7, 1);
        static final TenantResolver TENANTS = apiKey -> TenantLookup.verified("own");

        @Bean
        RuleBook ownRules() {
            return RULES;
        }

        @Bean
        TenantResolver ownTenants() {
            return TENANTS;
        }

        @Bean
        DecisionMetrics ownMetrics(MeterRegistry meters) {
            return new DecisionMetrics(meters);
        }
    }

    @Test
    void backsOffWhereTheApplicationDefinesItsOwnBeans() {
        runner.withUserConfiguration(OwnBeans.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(RuleBook.class);
            assertThat(context.getBean(RuleBook.class)).isSameAs(OwnBeans.RULES);
            assertThat(context.getBean(TenantResolver.class)).isSameAs(OwnBeans.TENANTS);
            assertThat(context).getBean("ownMetrics").isSameAs(context.getBean(DecisionMetrics.class));
            // The limits of every request come from the application's rule book, not configuration's.
            assertThat(context.getBean(LimitBook.class).limitsFor("any", "r").singleBucket())
                    .isEqualTo(RateLimitRule.of(7, 1));
        });
    }

    @Test
    void plansInConfigurationBesideTheApplicationsOwnRuleBookAreRefused() {
        runner.withUserConfiguration(OwnBeans.class).withPropertyValues("tollgate.plans.free[0].name=day",
                "tollgate.plans.free[0].scope=tenant", "tollgate.plans.free[0].quota=5",
                "tollgate.plans.free[0].period=day").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "tollgate.plans and tollgate.tenant-plans cannot apply: the application's own RuleBook");
        });
    }

    @Test
    void aBadSettingStopsTheStartNamingIt() {
        runner.withPropertyValues("tollgate.fallback.instances=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("tollgate.fallback");
            assertThat(context.getStartupFailure()).hasStackTraceContaining("instances");
        });
        runner.withPropertyValues("tollgate.redis.timeout=0ms").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("tollgate.redis")
                    .hasStackTraceContaining("timeout");
        });
    }

    @Test
    void hotKeyLeasesAreOnAsTheirRecordSaysUnlessSwitchedOff() {
        runner.run(context -> assertThat(context).hasSingleBean(LeasingBucketStore.class)
                .hasSingleBean(MultiLimitLeases.class));
        runner.withPropertyValues("tollgate.hot-keys.leases.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LeasingBucketStore.class)
                        .doesNotHaveBean(MultiLimitLeases.class));
    }

    @Test
    void aSwitchSetToNeitherTrueNorFalseStopsTheStartNamingIt() {
        // The binder would read "yes" as true, where the condition used to read it as off.
        runner.withPropertyValues("tollgate.hot-keys.leases.enabled=yes").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("tollgate.hot-keys.leases.enabled must be true or false, was 'yes'");
        });
    }

    @Test
    void theBreakerOpensBrieflyTheFirstTimeAndTwiceAsLongEachTimeItsProbesFail() {
        runner.run(context -> {
            IntervalFunction openFor = context.getBean(CircuitBreaker.class).getCircuitBreakerConfig()
                    .getWaitIntervalFunctionInOpenState();
            assertThat(IntStream.rangeClosed(1, 7).mapToObj(openFor::apply))
                    .containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L, 1000L);
            assertThat(openFor.apply(Integer.MAX_VALUE)).isEqualTo(1000L);
        });
        runner.withPropertyValues("tollgate.redis.circuit-breaker.first-wait-in-open-state=3s",
                "tollgate.redis.circuit-breaker.wait-in-open-state=2s").run(context -> {
            IntervalFunction openFor = context.getBean(CircuitBreaker.class).getCircuitBreakerConfig()
                    .getWaitIntervalFunctionInOpenState();
            assertThat(openFor.apply(1)).as("the first wait is never longer than the longest").isEqualTo(2000L);
        });
    }

    @Test
    void aStartWithRedisUpWaitsUntilItIsConnected_andAStartWithRedisRefusedDoesNot() {
        runner.run(context -> {
            RedisConnector connector = context.getBean(RedisConnector.class);
            assertThat(connector.lanes()).as("connected before the context is handed out")
                    .isEqualTo(context.getBean(DedicatedRedisClient.class).connections());
        });
        int refused = dev.tollgate.testkit.FreePort.find();
        // The wait is ten minutes: only the refusal can end it within the assertion's 30 s.
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> runner
                .withPropertyValues("spring.data.redis.port=" + refused, "tollgate.redis.startup-wait=10m")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RedisConnector.class).isConnected()).isFalse();
                }));
    }

    /**
     * Starts before every component of Tollgate's (below {@link LifecyclePhase#CONNECTIONS}) and notes
     * what it finds then: what the {@code @Bean} methods alone have done.
     */
    static final class BeforeTollgateStarts implements SmartLifecycle {
        private final ApplicationContext context;
        volatile int lanes = -1;
        volatile boolean connected;
        final List<String> running = new ArrayList<>();
        private volatile boolean started;

        BeforeTollgateStarts(ApplicationContext context) {
            this.context = context;
        }

        @Override
        public void start() {
            RedisConnector connector = context.getBean(RedisConnector.class);
            lanes = connector.lanes();
            connected = connector.isConnected();
            context.getBeansOfType(BackgroundService.class).forEach((name, service) -> {
                if (service.isRunning()) {
                    running.add(name);
                }
            });
            started = true;
        }

        @Override
        public void stop() {
            started = false;
        }

        @Override
        public boolean isRunning() {
            return started;
        }

        @Override
        public int getPhase() {
            return LifecyclePhase.CONNECTIONS.value() - 1;
        }
    }

    /** Records the order Spring starts and stops Tollgate's background components in. */
    @Configuration(proxyBeanMethods = false)
    static class LifecycleProbes {
        static final List<String> STARTED = new ArrayList<>();
        static final List<String> STOPPED = new ArrayList<>();

        @Bean
        BeforeTollgateStarts beforeTollgateStarts(ApplicationContext context) {
            return new BeforeTollgateStarts(context);
        }

        @Bean
        static BeanPostProcessor recordingBackgroundServices() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (!(bean instanceof BackgroundService service)) {
                        return bean;
                    }
                    LifecyclePhase phase = Arrays.stream(LifecyclePhase.values())
                            .filter(p -> p.value() == service.getPhase()).findFirst().orElseThrow();
                    return BackgroundService.of(service.name(), phase, () -> {
                        STARTED.add(service.name());
                        service.start();
                    }, () -> {
                        STOPPED.add(service.name());
                        service.stop();
                    });
                }
            };
        }
    }

    @Test
    void theBeanMethodsOnlyConstruct_theComponentsStartInTheirPhasesAndStopInReverse() {
        LifecycleProbes.STARTED.clear();
        LifecycleProbes.STOPPED.clear();
        runner.withUserConfiguration(LifecycleProbes.class).run(context -> {
            assertThat(context).hasNotFailed();
            BeforeTollgateStarts before = context.getBean(BeforeTollgateStarts.class);
            assertThat(before.lanes).as("no connection before the start").isZero();
            assertThat(before.connected).isFalse();
            assertThat(before.running).as("no component running before the start").isEmpty();

            Map<String, LifecyclePhase> phases = new TreeMap<>();
            context.getBeansOfType(BackgroundService.class).forEach((name, service) -> phases.put(name,
                    Arrays.stream(LifecyclePhase.values()).filter(p -> p.value() == service.getPhase())
                            .findFirst().orElseThrow()));
            assertThat(phases)
                    .containsEntry("redisConnection", LifecyclePhase.CONNECTIONS)
                    .containsEntry("heartbeats", LifecyclePhase.PRESENCE)
                    .containsEntry("leaseReturns", LifecyclePhase.WORK)
                    .containsEntry("multiLimitLeaseReturns", LifecyclePhase.WORK)
                    .containsEntry("fallbackEviction", LifecyclePhase.WORK);
            assertThat(context.getBeansOfType(BackgroundService.class).values()).allMatch(BackgroundService::isRunning);
            assertThat(context.getBean(RedisConnector.class).lanes()).as("connected at start")
                    .isEqualTo(context.getBean(DedicatedRedisClient.class).connections());
        });
        assertThat(LifecycleProbes.STARTED).startsWith("redisConnection");
        assertThat(LifecycleProbes.STARTED.indexOf("heartbeats"))
                .isLessThan(LifecycleProbes.STARTED.indexOf("leaseReturns"))
                .isLessThan(LifecycleProbes.STARTED.indexOf("fallbackEviction"));
        // Leases back first, then the heartbeat off, then the connections closed.
        assertThat(LifecycleProbes.STOPPED).endsWith("heartbeats", "redisConnection");
        assertThat(LifecycleProbes.STOPPED.indexOf("leaseReturns"))
                .isLessThan(LifecycleProbes.STOPPED.indexOf("heartbeats"));
        assertThat(LifecycleProbes.STOPPED.indexOf("multiLimitLeaseReturns"))
                .isLessThan(LifecycleProbes.STOPPED.indexOf("heartbeats"));
        assertThat(LifecycleProbes.STOPPED.indexOf("fallbackEviction"))
                .isLessThan(LifecycleProbes.STOPPED.indexOf("heartbeats"));
    }
}
