package dev.tollgate.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;


import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.lifecycle.BackgroundService;
import dev.tollgate.spring.lifecycle.LifecyclePhase;
import dev.tollgate.spring.metrics.TollgateMeters;
import dev.tollgate.spring.postgres.NotificationListener;
import dev.tollgate.spring.settings.DatasourceProperties;
import dev.tollgate.spring.settings.DirectoryProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The database side's {@code @Bean} methods only construct: nothing connects (neither the listener
 * nor the pool), listens or loads while
 * the beans are made; the context starts the notification listener (connections phase), then the
 * refresher with its first load (state phase), and stops them in the reverse order.
 */
class DatabaseLifecycleTest {

    private static PostgresDatabase postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.freshDatabase();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties({TollgateProperties.class, DirectoryProperties.class, DatasourceProperties.class})
    static class Base {
        @Bean
        TollgateMeters tollgateMeters() {
            return new TollgateMeters(new SimpleMeterRegistry());
        }

        /** Looks, once every bean is made and before the context starts them, at what already runs. */
        @Bean
        static BeforeStart beforeStart(ObjectProvider<NotificationListener> listener,
                                       ObjectProvider<DirectoryRefresher> refresher,
                                       ObjectProvider<BackgroundService> services) {
            return new BeforeStart(listener, refresher, services);
        }
    }

    /** What was running when every singleton had been made. */
    static final class BeforeStart implements SmartInitializingSingleton {
        private final ObjectProvider<NotificationListener> listener;
        private final ObjectProvider<DirectoryRefresher> refresher;
        private final ObjectProvider<BackgroundService> services;
        final List<String> running = new ArrayList<>();
        boolean listening;
        boolean startupDone;
        int sessions = -1;

        BeforeStart(ObjectProvider<NotificationListener> listener, ObjectProvider<DirectoryRefresher> refresher,
                    ObjectProvider<BackgroundService> services) {
            this.listener = listener;
            this.refresher = refresher;
            this.services = services;
        }

        @Override
        public void afterSingletonsInstantiated() {
            services.orderedStream().filter(BackgroundService::isRunning).forEach(s -> running.add(s.name()));
            listening = listener.getObject().isListening();
            startupDone = refresher.getObject().status().isStartupDone();
            try {
                sessions = tollgateSessions();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(Base.class, DatabaseDirectoryConfiguration.class)
            .withPropertyValues("tollgate.datasource.url=" + postgres.jdbcUrl(),
                    "tollgate.datasource.username=" + postgres.username(),
                    "tollgate.datasource.password=" + postgres.password(),
                    "tollgate.local-state.enabled=false");

    @Test
    void beansAreOnlyConstructedAndTheContextStartsThemInTheirPhases() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            BeforeStart before = context.getBean(BeforeStart.class);
            assertThat(before.running).as("services running before the context started them").isEmpty();
            assertThat(before.listening).isFalse();
            assertThat(before.startupDone).as("the first load waited for in a bean method").isFalse();
            assertThat(before.sessions).as("Tollgate's sessions (listener, pool) before the start").isZero();

            Map<String, BackgroundService> services = context.getBeansOfType(BackgroundService.class);
            assertThat(services.values()).allMatch(BackgroundService::isRunning);
            assertThat(services.values().stream().filter(s -> s.name().equals("notification listener")).findFirst()
                    .orElseThrow().getPhase()).isEqualTo(LifecyclePhase.CONNECTIONS.value());
            assertThat(services.values().stream().filter(s -> s.name().equals("directory refresher")).findFirst()
                    .orElseThrow().getPhase()).isEqualTo(LifecyclePhase.STATE.value());
            // Started: the refresher waited for its first load in start(), and the listener listens.
            assertThat(context.getBean(DirectoryRefresher.class).status().isStartupDone()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(NotificationListener.class).isListening());

            context.stop();
            assertThat(services.values()).noneMatch(BackgroundService::isRunning);
            await().atMost(Duration.ofSeconds(5)).until(() -> !context.getBean(NotificationListener.class).isListening());
        });
    }

    /** Every client session on the test's database but this query's own: the listener's and the pool's. */
    private static int tollgateSessions() throws SQLException {
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                     + " AND backend_type = 'client backend'")) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
