package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.SerialScheduler;
import dev.tollgate.core.WallClock;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.DirectorySnapshot;
import dev.tollgate.spring.directory.database.ChangeLogFollower;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.spring.directory.database.DirectorySeed;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.directory.snapshot.SnapshotFile;
import dev.tollgate.spring.health.DirectoryHealthIndicator;
import dev.tollgate.spring.health.RulesReadinessIndicator;
import dev.tollgate.spring.lifecycle.BackgroundService;
import dev.tollgate.spring.lifecycle.LifecyclePhase;
import dev.tollgate.spring.localstate.LocalState;
import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.metrics.TollgateMeters;
import dev.tollgate.spring.postgres.ConnectionPolicy;
import dev.tollgate.spring.postgres.DirectoryConnectionPool;
import dev.tollgate.spring.postgres.NotificationListener;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.spring.settings.DatasourceProperties;
import dev.tollgate.spring.settings.DirectoryProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import java.time.Duration;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * {@code tollgate.source=database} (the default): rules and hashed API keys in PostgreSQL, held in
 * memory by the {@link Directory} and kept fresh by the {@link DirectoryRefresher}, which the
 * {@link NotificationListener} tells of changes. Nothing here needs the database to be up when the
 * gateway starts. The {@code @Bean} methods only construct: the listener starts in the
 * {@link LifecyclePhase#CONNECTIONS} phase, the refresher (and its wait for the first load) in
 * {@link LifecyclePhase#STATE}, each through a {@link BackgroundService}. Only with
 * PostgreSQL support on the class path ({@link PostgresSupport}: the starter declares it optional);
 * without it, {@link PostgresSupportMissingConfiguration} stops the start.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(TollgateSwitches.RulesFromDatabase.class)
@ConditionalOnClass(name = {"org.postgresql.Driver", "com.zaxxer.hikari.HikariDataSource",
        "org.springframework.jdbc.core.JdbcTemplate", "org.flywaydb.core.Flyway",
        "org.flywaydb.database.postgresql.PostgreSQLDatabaseType"})
class DatabaseDirectoryConfiguration {

    /**
     * From {@code tollgate.datasource.*} when Tollgate has a database of its own, else from Spring
     * Boot's standard {@code spring.datasource.url}, {@code .username}, {@code .password}; in the
     * schema of {@code tollgate.datasource.schema}. An application that defines its own
     * {@link DatabaseEndpoint} bean (dev mode, for its embedded database) replaces this one.
     */
    @Bean
    @ConditionalOnMissingBean
    DatabaseEndpoint databaseEndpoint(DatasourceProperties datasource, Environment environment) {
        return datasource.endpoint(environment);
    }

    /** The timeouts of every PostgreSQL connection Tollgate opens. */
    @Bean
    @ConditionalOnMissingBean
    ConnectionPolicy postgresConnectionPolicy() {
        return ConnectionPolicy.DEFAULT;
    }

    /**
     * Tollgate's own small pool, deliberately not a {@code DataSource} bean: in an application with a
     * database of its own, a {@code DataSource} bean of ours would make Spring Boot's back off.
     */
    @Bean(destroyMethod = "close")
    DirectoryConnectionPool directoryConnectionPool(DatabaseEndpoint endpoint, DirectoryProperties properties,
                                                    ConnectionPolicy policy) {
        return DirectoryConnectionPool.open(endpoint, properties.poolSize(), policy);
    }

    @Bean
    DirectoryRepository directoryRepository(DirectoryConnectionPool pool) {
        return new DirectoryRepository(pool.dataSource(), pool.schema());
    }

    @Bean
    @ConditionalOnMissingBean
    Directory directory(TollgateProperties properties, DirectoryProperties directoryProperties) {
        if (!properties.rules().isEmpty()) {
            LoggerFactory.getLogger(DatabaseDirectoryConfiguration.class).warn(
                    "tollgate.rules ({} entries) is ignored with tollgate.source=database: rules live in PostgreSQL",
                    properties.rules().size());
        }
        return new Directory(DirectorySnapshot.notLoaded(properties.defaultRateLimitRule(), properties.defaultPlan()),
                directoryProperties.unverifiedKeys());
    }

    /**
     * Saved after every load; restored when the database cannot be read at start. None with
     * {@code tollgate.local-state.enabled=false}.
     */
    @Bean(destroyMethod = "close")
    DirectoryRefresher directoryRefresher(DirectoryRepository repository, Directory directory, DirectoryProperties p,
                                          DatabaseEndpoint endpoint, ObjectProvider<LocalState> localState,
                                          TollgateMeters meters, ObjectProvider<DirectorySeed> seeds,
                                          ObjectProvider<ChangeLogFollower> followers) {
        LocalStateDirectory folder = localState.getIfAvailable(LocalState::none).folder().orElse(null);
        return new DirectoryRefresher(repository, directory,
                new DirectoryRefresher.Settings(p.refreshInterval(), p.fullReloadInterval(), p.retryDelay(),
                        p.changeRetention(), p.changeLookback(), p.migrate()),
                meters.registry(), seeds.orderedStream().toList(), followers.orderedStream().toList(),
                folder == null ? null : new SnapshotFile(folder, endpoint, WallClock.system()),
                SerialScheduler.daemonThread("tollgate-directory"),
                folder == null ? null : SerialScheduler.daemonThread("tollgate-directory-saver"));
    }

    /**
     * Starts the refresher once the notification listener has, and waits there (not in a bean method)
     * up to {@code tollgate.directory.initial-load-timeout} for the first load.
     */
    @Bean
    BackgroundService directoryRefresherService(DirectoryRefresher refresher, DirectoryProperties p) {
        return BackgroundService.of("directory refresher", LifecyclePhase.STATE, () -> {
            refresher.start();
            refresher.awaitFirstAttempt(p.initialLoadTimeout());
        }, refresher);
    }

    /**
     * The one LISTEN connection. Directory changes go to the refresher's one entry for them,
     * {@link DirectoryRefresher#refreshSoon()}; the region coordinator, if any, subscribes too.
     */
    @Bean(destroyMethod = "close")
    NotificationListener notificationListener(ConnectionPolicy policy, DatabaseEndpoint endpoint,
                                              DirectoryRefresher refresher, DirectoryProperties p) {
        NotificationListener listener = new NotificationListener(policy, endpoint, p.retryDelay(),
                maxRetryDelay(p.retryDelay()), SerialScheduler.daemonThread("tollgate-notifications"));
        listener.subscribe(DirectoryRefresher.CHANGES_CHANNEL, refresher::refreshSoon);
        return listener;
    }

    /**
     * How far the listener's backoff grows during an outage: 5 times the retry delay (10 s with the
     * default 2 s), never below it. The refresher retries on its own meanwhile, and reconnecting
     * makes it catch up, so a longer wait only delays notifications, never changes.
     */
    static Duration maxRetryDelay(Duration retryDelay) {
        return retryDelay.multipliedBy(5);
    }

    @Bean
    BackgroundService notificationListenerService(NotificationListener listener) {
        return BackgroundService.restartable("notification listener", LifecyclePhase.CONNECTIONS, listener::start,
                listener::stop);
    }

    @Bean
    RulesReadinessIndicator rulesHealthIndicator(Directory directory, DirectoryRefresher refresher) {
        return new RulesReadinessIndicator(() -> directory.snapshot().loaded(), refresher.status()::isStartupDone);
    }

    @Bean
    DirectoryHealthIndicator directoryHealthIndicator(Directory directory, DirectoryRefresher refresher,
                                                      NotificationListener listener) {
        return new DirectoryHealthIndicator(directory, refresher, listener, WallClock.system());
    }
}
