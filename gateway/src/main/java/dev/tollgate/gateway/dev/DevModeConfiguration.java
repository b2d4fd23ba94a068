package dev.tollgate.gateway.dev;

import dev.tollgate.testkit.RedisServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpMethod;

/**
 * Dev mode ({@code --spring.profiles.active=dev}): everything on this machine, nothing to install.
 * A real {@code redis-server} is started on a free port (the system's Redis 7 if on the PATH,
 * else the binary shipped in the embedded-redis jar), a demo backend answers the routes below, and
 * {@code application-dev.yml} holds demo rules. All of it stops with the gateway.
 */
@Configuration(proxyBeanMethods = false)
@Profile("dev")
class DevModeConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DevModeConfiguration.class);

    @Bean(destroyMethod = "close")
    RedisServer devRedisServer() {
        RedisServer server = RedisServer.start();
        log.info("Dev mode: redis-server {} on 127.0.0.1:{}", server.binary(), server.port());
        return server;
    }

    /** Points Spring Boot's Redis client at the dev server instead of {@code spring.data.redis.*}. */
    @Bean
    DataRedisConnectionDetails devRedisConnectionDetails(RedisServer devRedisServer) {
        return new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of(devRedisServer.host(), devRedisServer.port());
            }
        };
    }

    @Bean(destroyMethod = "close")
    DemoUpstream demoUpstream() {
        DemoUpstream upstream = DemoUpstream.start();
        log.info("Dev mode: demo backend on {}", upstream.uri());
        return upstream;
    }

    /** The demo routes: the seed's {@code POST /orders}, plus two more to play with. */
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
