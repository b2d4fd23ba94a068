package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RuleBook;
import dev.tollgate.core.SerialScheduler;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.core.region.RegionalRuleBook;
import dev.tollgate.core.region.ShareRebalancer;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.health.RegionHealthIndicator;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.spring.lifecycle.BackgroundService;
import dev.tollgate.spring.lifecycle.LifecyclePhase;
import dev.tollgate.spring.limiter.DecisionListener;
import dev.tollgate.spring.metrics.TollgateMeters;
import dev.tollgate.spring.postgres.ConnectionPolicy;
import dev.tollgate.spring.postgres.NotificationListener;
import dev.tollgate.spring.region.CurrentShares;
import dev.tollgate.spring.region.DemandRecorder;
import dev.tollgate.spring.region.RebalancerMetrics;
import dev.tollgate.spring.region.RegionCoordinator;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.spring.settings.DirectoryProperties;
import dev.tollgate.spring.settings.RebalancerProperties;
import dev.tollgate.spring.settings.RegionProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * Several regions ({@code tollgate.region} set; see {@code docs/multi-region.md}): every rule is
 * enforced at this region's share ({@link RegionalRuleBook}, the rule book the limiter uses), and,
 * with rules in PostgreSQL and {@code tollgate.rebalancer.enabled}, the {@link RegionCoordinator}
 * reports this instance's demand, reads the shares the rebalancer moves, and runs the rebalancer
 * while it holds its lock. Without {@code tollgate.region}, none of this exists: one region, every
 * limit enforced whole.
 */
@AutoConfiguration(after = TollgateAutoConfiguration.class)
@Conditional({TollgateSwitches.LimiterOn.class, RegionAutoConfiguration.RegionIsSet.class})
@EnableConfigurationProperties({RegionProperties.class, RebalancerProperties.class})
public class RegionAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RegionAutoConfiguration.class);

    /** Matches when {@code tollgate.region} has a value (blank counts as unset). */
    static final class RegionIsSet extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String region = context.getEnvironment().getProperty("tollgate.region");
            return StringUtils.hasText(region)
                    ? ConditionOutcome.match("tollgate.region is " + region)
                    : ConditionOutcome.noMatch("tollgate.region is not set: a single region");
        }
    }

    @Bean
    CurrentShares currentShares(RegionProperties regions, RebalancerProperties rebalancer, TollgateProperties tollgate) {
        rebalancer.settings(regions.defaultShares()); // fail at start if the minimum share cannot hold
        log.info("Region {}: limits split by default shares {}{}", regions.region(), regions.defaultShares(),
                !rebalancer.enabled() ? " (rebalancer off: they stay there)"
                        : tollgate.source() == TollgateProperties.Source.STATIC
                        ? " (tollgate.source=static: they stay there, the rebalancer needs PostgreSQL)" : "");
        return new CurrentShares(regions.region(), regions.defaultShares());
    }

    /** The rule book the limiter uses: the rules as written, scaled to this region's share of each bucket. */
    @Bean
    @Primary
    RegionalRuleBook regionalRuleBook(RegionProperties regions, CurrentShares shares,
                                      ObjectProvider<Directory> directory, TollgateProperties tollgate) {
        Directory fromDatabase = directory.getIfAvailable();
        RuleBook rules = fromDatabase != null ? fromDatabase : tollgate.ruleSet();
        return new RegionalRuleBook(rules, regions.region(), shares);
    }

    @Bean
    RegionHealthIndicator regionHealthIndicator(CurrentShares shares, ObjectProvider<RegionCoordinator> coordinator) {
        return new RegionHealthIndicator(shares, coordinator.getIfAvailable());
    }

    /** The rebalancer moves the shares: {@code tollgate.rebalancer.enabled}. */
    static final class RebalancerOn extends SettingCondition<RebalancerProperties> {
        RebalancerOn() {
            super("tollgate.rebalancer", RebalancerProperties.class, "tollgate.rebalancer.enabled",
                    RebalancerProperties::enabled, true);
        }
    }

    /** The rebalancer's parts: only with rules in PostgreSQL, where shares and reports live. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RebalancerOn.class)
    @ConditionalOnBean(DatabaseEndpoint.class)
    static class RebalancerConfiguration {

        @Bean
        DemandMeter regionDemandMeter() {
            return new DemandMeter(MonotonicClock.system());
        }

        /** Counts each decision in memory for the demand reports. */
        @Bean
        DecisionListener regionDemandRecorder(DemandMeter regionDemandMeter) {
            return new DemandRecorder(regionDemandMeter);
        }

        /**
         * Only constructed here; it hears of new shares through the notification listener, and
         * starts in the {@link LifecyclePhase#STATE} phase ({@link #regionCoordinatorService}).
         */
        @Bean(destroyMethod = "close")
        RegionCoordinator regionCoordinator(DemandMeter regionDemandMeter, RegionProperties regions,
                                            RebalancerProperties rebalancer, CurrentShares shares,
                                            RegionalRuleBook regionalRules, Directory directory,
                                            ObjectProvider<ConnectionPolicy> policy, DatabaseEndpoint endpoint,
                                            DirectoryProperties directoryProperties, LiveInstances instances,
                                            TollgateMeters meters, ObjectProvider<NotificationListener> notifications) {
            RegionCoordinator coordinator = new RegionCoordinator(new RegionCoordinator.Parts(
                    policy.getIfAvailable(() -> ConnectionPolicy.DEFAULT), endpoint,
                    shares, regionDemandMeter, regionalRules, directory, instances::count, instances.instanceId(),
                    new ShareRebalancer(rebalancer.settings(regions.defaultShares())),
                    rebalancer.interval(), directoryProperties.retryDelay(),
                    SerialScheduler.daemonThread("tollgate-region")));
            coordinator.measuredBy(new RebalancerMetrics(meters.registry(), coordinator, shares));
            // Without the listener (no rules in PostgreSQL), the check every interval still reads new shares.
            notifications.ifAvailable(n -> n.subscribe(RegionCoordinator.SHARES_CHANNEL, coordinator::sharesChanged));
            return coordinator;
        }

        /** Stopping gives the rebalancer's lock up and says this instance leaves, waiting up to 2 s for it. */
        @Bean
        BackgroundService regionCoordinatorService(RegionCoordinator coordinator) {
            return BackgroundService.restartable("region coordinator", LifecyclePhase.STATE, coordinator::start, () -> {
                try {
                    coordinator.stop().get(2, TimeUnit.SECONDS);
                } catch (TimeoutException | ExecutionException e) {
                    log.warn("Region coordinator did not stop within 2 s: {}", e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
    }
}
