package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import dev.tollgate.spring.region.CurrentShares;
import dev.tollgate.spring.region.RegionCoordinator;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Without {@code tollgate.region} nothing changes; with rules from configuration (no PostgreSQL) a
 * region enforces its default share. (Bad region settings stop the start: the starter's
 * {@code StartupValidationTest}.)
 */
class RegionConfigurationTest {

    private static RedisServer redis;
    private static TestUpstream upstream;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
    }

    @AfterAll
    static void stop() {
        upstream.close();
        redis.close();
    }

    private static Map<String, Object> staticGateway(Map<String, Object> extra) {
        Map<String, Object> p = new HashMap<>(extra);
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.source", "static");
        p.put("tollgate.redis.timeout", "5s");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        p.putAll(RunningGateway.rule(0, "shop", "create-order", 10, 0.01));
        return p;
    }

    @Test
    void withoutARegionEveryLimitIsEnforcedWhole() {
        try (RunningGateway gateway = RunningGateway.start(staticGateway(Map.of()))) {
            assertThat(gateway.context().getBeansOfType(CurrentShares.class)).isEmpty();
            assertThat(gateway.context().getBean(RuleBook.class).ruleFor("shop", "create-order").regionSharePpm())
                    .isEqualTo(RateLimitRule.WHOLE_SHARE_PPM);
            HttpResponse<String> first = gateway.send("POST", "/orders", "shop");
            assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("10");
        }
    }

    @Test
    void withRulesFromConfigurationARegionEnforcesItsDefaultShare() {
        try (RunningGateway eu = RunningGateway.start(staticGateway(Map.of("tollgate.region", "eu",
                "tollgate.regions.eu.share", "0.7", "tollgate.regions.us.share", "0.3")))) {
            assertThat(eu.context().getBeansOfType(RegionCoordinator.class)).as("no rebalancer without PostgreSQL")
                    .isEmpty();
            HttpResponse<String> first = eu.send("POST", "/orders", "shop");
            assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("7");
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"create-order\";q=7;w=1000");
            int admitted = 1;
            for (int i = 0; i < 10; i++) {
                admitted += eu.send("POST", "/orders", "shop").statusCode() == 200 ? 1 : 0;
            }
            assertThat(admitted).as("7 of the rule's burst of 10").isEqualTo(7);
            assertThat(eu.management("/actuator/health/region").body())
                    .contains("\"region\":\"eu\"").contains("\"rebalancer\":\"off\"");
        }
    }
}
