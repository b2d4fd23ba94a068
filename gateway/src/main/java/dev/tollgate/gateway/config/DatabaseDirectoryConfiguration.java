package dev.tollgate.gateway.config;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.tollgate.gateway.directory.ChangeListener;
import dev.tollgate.gateway.directory.Directory;
import dev.tollgate.gateway.directory.DirectoryHealthIndicator;
import dev.tollgate.gateway.directory.DirectoryRefresher;
import dev.tollgate.gateway.directory.DirectoryRepository;
import dev.tollgate.gateway.directory.DirectorySeed;
import dev.tollgate.gateway.directory.DirectorySnapshot;
import dev.tollgate.gateway.directory.RulesReadinessIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;

/**
 * {@code tollgate.source=database} (the default): rules and hashed API keys in PostgreSQL, held in
 * memory by the {@link Directory} and kept fresh by the {@link DirectoryRefresher} and the
 * {@link ChangeListener}. Nothing here needs the database to be up when the gateway starts.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "tollgate.source", havingValue = "database", matchIfMissing = true)
class DatabaseDirectoryConfiguration {

    /**
     * From Spring Boot's standard {@code spring.datasource.url}, {@code .username}, {@code .password}.
     * Dev mode brings its own embedded database instead.
     */
    @Bean
    @Profile("!dev")
    DatabaseEndpoint databaseEndpoint(Environment environment) {
        return new DatabaseEndpoint(environment.getProperty("spring.datasource.url"),
                environment.getProperty("spring.datasource.username"),
                environment.getProperty("spring.datasource.password"));
    }

    @Bean(destroyMethod = "close")
    HikariDataSource directoryDataSource(DatabaseEndpoint endpoint, DirectoryProperties properties) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("tollgate-directory");
        config.setJdbcUrl(endpoint.url());
        config.setUsername(endpoint.username());
        config.setPassword(endpoint.password());
        config.setMaximumPoolSize(properties.poolSize());
        config.setMinimumIdle(1);
        // Start without the database, and fail a query in 2 s rather than hang when it is gone.
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(2_000);
        return new HikariDataSource(config);
    }

    @Bean
    DirectoryRepository directoryRepository(DataSource directoryDataSource) {
        return new DirectoryRepository(directoryDataSource);
    }

    @Bean
    Directory directory(TollgateProperties properties, DirectoryProperties directoryProperties) {
        if (!properties.rules().isEmpty()) {
            LoggerFactory.getLogger(DatabaseDirectoryConfiguration.class).warn(
                    "tollgate.rules ({} entries) is ignored with tollgate.source=database: rules live in PostgreSQL",
                    properties.rules().size());
        }
        return new Directory(DirectorySnapshot.notLoaded(properties.defaultRateLimitRule()),
                directoryProperties.unverifiedKeys());
    }

    @Bean(destroyMethod = "close")
    DirectoryRefresher directoryRefresher(DirectoryRepository repository, Directory directory,
                                          TollgateProperties properties, DirectoryProperties p,
                                          MeterRegistry meters, ObjectProvider<DirectorySeed> seeds) {
        DirectoryRefresher refresher = new DirectoryRefresher(repository, directory, properties.defaultRateLimitRule(),
                new DirectoryRefresher.Settings(p.refreshInterval(), p.fullReloadInterval(), p.retryDelay(),
                        p.changeRetention(), p.changeLookback(), p.migrate()),
                meters, seeds.orderedStream().toList());
        refresher.start(p.initialLoadTimeout());
        return refresher;
    }

    @Bean(destroyMethod = "close")
    ChangeListener changeListener(DatabaseEndpoint endpoint, DirectoryRefresher refresher, DirectoryProperties p) {
        ChangeListener listener = new ChangeListener(endpoint, refresher, p.retryDelay());
        listener.start();
        return listener;
    }

    @Bean
    RulesReadinessIndicator rulesHealthIndicator(Directory directory, DirectoryRefresher refresher) {
        return new RulesReadinessIndicator(() -> directory.snapshot().loaded(), refresher::isStartupDone);
    }

    @Bean
    DirectoryHealthIndicator directoryHealthIndicator(Directory directory, DirectoryRefresher refresher,
                                                      ChangeListener listener) {
        return new DirectoryHealthIndicator(directory, refresher, listener);
    }
}
