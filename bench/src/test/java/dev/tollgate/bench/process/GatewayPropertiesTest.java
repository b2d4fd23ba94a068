package dev.tollgate.bench.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class GatewayPropertiesTest {

    private static final String FILTER = "spring.cloud.gateway.server.webflux.routes[0].filters[0].";

    @Test
    void onlyTheLimiterDiffersBetweenVariants() {
        Map<String, String> none = GatewayProperties.of(GatewayVariant.NO_LIMITER, 8080, "http://127.0.0.1:9", 6379);
        Map<String, String> tollgate = GatewayProperties.of(GatewayVariant.TOLLGATE, 8080, "http://127.0.0.1:9", 6379);
        Map<String, String> builtIn = GatewayProperties.of(GatewayVariant.BUILT_IN, 8080, "http://127.0.0.1:9", 6379);

        assertThat(none).containsEntry("tollgate.enabled", "false").doesNotContainKey(FILTER + "name");
        assertThat(tollgate).doesNotContainKey("tollgate.enabled").doesNotContainKey(FILTER + "name")
                .containsEntry("tollgate.rules[0].tenant", BenchRoutes.ACCURACY_TENANT);
        assertThat(builtIn).containsEntry("tollgate.enabled", "false")
                .containsEntry(FILTER + "name", "RequestRateLimiter")
                .containsEntry(FILTER + "args[key-resolver]", "#{@apiKeyResolver}");
        // The product as shipped: no setting of Tollgate's own is changed, only rules are given.
        assertThat(tollgate.keySet()).noneMatch(key -> key.startsWith("tollgate.redis.")
                || key.startsWith("tollgate.fallback.") || key.startsWith("tollgate.hot-keys."));
        for (Map<String, String> p : java.util.List.of(none, tollgate, builtIn)) {
            assertThat(p).containsEntry("server.address", "127.0.0.1")
                    .containsEntry("spring.data.redis.host", "127.0.0.1")
                    .containsEntry("spring.cloud.gateway.server.webflux.routes[0].uri", "http://127.0.0.1:9");
        }
    }

    @Test
    void theThreeLimitVariantPutsEveryTenantOnADefaultPlanOfThreeUnreachedLimits() {
        Map<String, String> three = GatewayProperties.of(GatewayVariant.TOLLGATE_THREE_LIMITS, 8080,
                "http://127.0.0.1:9", 6379);
        String plan = "tollgate.plans." + BenchRoutes.THREE_LIMIT_PLAN;

        assertThat(three).doesNotContainKey("tollgate.enabled")
                .containsEntry("tollgate.source", "static")
                .containsEntry("tollgate.default-plan", BenchRoutes.THREE_LIMIT_PLAN)
                .containsEntry(plan + "[0].scope", "each-route")
                .containsEntry(plan + "[0].capacity", Long.toString(BenchRoutes.UNREACHED_CAPACITY))
                .containsEntry(plan + "[1].scope", "tenant")
                .containsEntry(plan + "[1].refill-per-second", Long.toString(BenchRoutes.UNREACHED_RATE))
                .containsEntry(plan + "[2].scope", "tenant")
                .containsEntry(plan + "[2].quota", "1000000000000")
                .containsEntry(plan + "[2].period", "day")
                .doesNotContainKey(plan + "[2].zone");
        assertThat(java.util.List.of(three.get(plan + "[0].name"), three.get(plan + "[1].name"),
                three.get(plan + "[2].name"))).containsExactlyElementsOf(BenchRoutes.THREE_LIMIT_NAMES);
        // No rule of its own for any tenant: each group of limits comes from the plan.
        assertThat(three.keySet()).noneMatch(key -> key.startsWith("tollgate.rules[")
                || key.startsWith("tollgate.default-rule.") || key.startsWith("tollgate.tenant-plans."));
    }
}
