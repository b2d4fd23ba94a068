package dev.tollgate.dev;

import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.spring.directory.ApiKeys;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.spring.directory.database.DirectorySeed;
import dev.tollgate.spring.plans.LimitDocument;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.spring.settings.DatasourceProperties;
import dev.tollgate.spring.settings.RedisEndpoint;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import java.math.BigDecimal;
import java.time.ZoneOffset;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;

/**
 * Dev mode ({@link TollgateDevMode}): everything on this machine, nothing to install.
 * A real {@code redis-server} is started on a free port (the system's Redis 7 if on the PATH,
 * else the binary shipped in the embedded-redis jar), a real PostgreSQL (zonky's embedded binaries)
 * holding demo rules and keys, and a demo backend for the routes below. All of it stops with the
 * gateway.
 */
@Configuration(proxyBeanMethods = false)
public class DevModeConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DevModeConfiguration.class);

    @Bean(destroyMethod = "close")
    RedisServer devRedisServer() {
        // Stopped by this bean's destroy method, once Tollgate's connections are closed.
        RedisServer server = RedisServer.startForApplication();
        log.info("Dev mode: redis-server {} on 127.0.0.1:{}", server.binary(), server.port());
        return server;
    }

    /** Points Tollgate's Redis connections at the dev server instead of {@code spring.data.redis.*}. */
    @Bean
    RedisEndpoint devRedisEndpoint(RedisServer devRedisServer) {
        return RedisEndpoint.standalone(devRedisServer.host(), devRedisServer.port());
    }

    /**
     * The dev PostgreSQL: on a free port, or on {@code tollgate.dev.postgres.port} so that a second
     * dev-mode gateway can share it (several regions on one machine, see {@code docs/multi-region.md}).
     * Not started when {@code tollgate.dev.postgres.url} names a PostgreSQL to use instead.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnExpression("'${tollgate.dev.postgres.url:}' == ''")
    PostgresServer devPostgresServer(@Value("${tollgate.dev.postgres.port:0}") int port) {
        // Stopped by this bean's destroy method, once the connection pools are closed.
        PostgresServer server = PostgresServer.startForApplication(port);
        log.info("Dev mode: PostgreSQL on 127.0.0.1:{} ({})", server.port(), server.jdbcUrl());
        return server;
    }

    /**
     * Points the rule directory at the dev database instead of {@code spring.datasource.*}: the one
     * started above, or the one {@code tollgate.dev.postgres.url} names (user {@code postgres}, no
     * password, as the dev database has), e.g. another dev-mode gateway's; in the schema of
     * {@code tollgate.datasource.schema}, if set.
     */
    @Bean
    DatabaseEndpoint devDatabaseEndpoint(ObjectProvider<PostgresServer> devPostgresServer,
                                         @Value("${tollgate.dev.postgres.url:}") String url,
                                         DatasourceProperties datasource) {
        if (!url.isBlank()) {
            log.info("Dev mode: using the PostgreSQL at {}", url);
            return new DatabaseEndpoint(url, "postgres", "", datasource.schema());
        }
        PostgresServer server = devPostgresServer.getObject();
        return new DatabaseEndpoint(server.jdbcUrl(), server.username(), server.password(), datasource.schema());
    }

    /**
     * Demo rules, a plan and keys. shop-a has rules of its own (a burst of 2 on {@code create-order})
     * and is on the plan {@code starter}, a calendar quota of 1,000 requests a UTC day over all its
     * routes: two limits on the README's {@code POST /orders}, both in {@code RateLimit-Policy}. The
     * keys are the tenants' names, so the README's curl demo works as written; real keys come from
     * {@code POST /admin/tenants/{tenant}/keys}.
     */
    @Bean
    DirectorySeed devDemoData() {
        return repository -> {
            seedRule(repository, "shop-a", "create-order", 2, 1);
            seedRule(repository, "shop-a", "*", 100, 50);
            seedRule(repository, "shop-b", "create-order", 200, 100);
            seedPlan(repository, "starter", List.of(new Limit(DEMO_DAILY_LIMIT, LimitScope.tenant(),
                    new CalendarQuota(1_000, QuotaPeriod.DAY, ZoneOffset.UTC))));
            seedTenantPlan(repository, "shop-a", "starter");
            seedKey(repository, "shop-a", "shop-a");
            seedKey(repository, "shop-b", "shop-b");
            log.info("Dev mode: demo rules, the plan 'starter' and keys for shop-a and shop-b are in place");
        };
    }

    /** The demo plan's day quota, as {@code RateLimit-Policy} names it. */
    static final String DEMO_DAILY_LIMIT = "daily";

    private static void seedPlan(DirectoryRepository repository, String plan, List<Limit> limits) {
        if (repository.findPlan(plan).isEmpty()) {
            repository.upsertPlan(plan, LimitDocument.toJson(limits));
        }
    }

    private static void seedTenantPlan(DirectoryRepository repository, String tenant, String plan) {
        if (repository.findTenantPlan(tenant).isEmpty()) {
            repository.setTenantPlan(tenant, plan);
        }
    }

    private static void seedRule(DirectoryRepository repository, String tenant,
                                 String route, long capacity, long refill) {
        if (repository.findRule(tenant, route).isEmpty()) {
            repository.upsertRule(tenant, route, capacity, BigDecimal.valueOf(refill), 1, false, 1);
        }
    }

    private static void seedKey(DirectoryRepository repository, String tenant,
                                String key) {
        if (repository.listKeys(tenant).isEmpty()) {
            repository.createKey(tenant, "dev demo key", ApiKeys.hash(key));
        }
    }

    @Bean(destroyMethod = "close")
    DemoUpstream demoUpstream() {
        DemoUpstream upstream = DemoUpstream.start();
        log.info("Dev mode: demo backend on {}", upstream.uri());
        return upstream;
    }

    /** The demo routes: the README's {@code POST /orders}, plus two more to play with. */
    @Bean
    RouteLocator demoRoutes(RouteLocatorBuilder routes, DemoUpstream demoUpstream) {
        String uri = demoUpstream.uri().toString();
        return routes.routes()
                .route("create-order", r -> r.method(HttpMethod.POST).and().path("/orders").uri(uri))
                .route("list-orders", r -> r.method(HttpMethod.GET).and().path("/orders").uri(uri))
                .route("catalog", r -> r.path("/catalog/**").uri(uri))
                .build();
    }
}
