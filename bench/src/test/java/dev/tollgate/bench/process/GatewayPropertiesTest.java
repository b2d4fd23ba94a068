package dev.tollgate.bench.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class GatewayPropertiesTest {

    private static final String FILTER = "spring.cloud.gateway.server.webflux.routes[0].filters[0].";
    private static final String JWKS = "http://127.0.0.1:7/jwks";

    @Test
    void onlyTheLimiterDiffersBetweenVariants() {
        Map<String, String> none = GatewayProperties.of(GatewayVariant.NO_LIMITER, 8080, "http://127.0.0.1:9", 6379, JWKS, 100);
        Map<String, String> tollgate = GatewayProperties.of(GatewayVariant.TOLLGATE, 8080, "http://127.0.0.1:9", 6379, JWKS, 100);
        Map<String, String> builtIn = GatewayProperties.of(GatewayVariant.BUILT_IN, 8080, "http://127.0.0.1:9", 6379, JWKS, 100);

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
                "http://127.0.0.1:9", 6379, JWKS, 100);
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

    @Test
    void theIdentityVariantsDifferFromTollgateOnlyInWhereTheCallerComesFrom() {
        Map<String, String> tollgate = of(GatewayVariant.TOLLGATE);
        Map<String, String> anonymous = of(GatewayVariant.TOLLGATE_ANONYMOUS);
        Map<String, String> jwt = of(GatewayVariant.TOLLGATE_JWT);
        Map<String, String> keys = of(GatewayVariant.TOLLGATE_KEYS);
        Map<String, String> noLimit = of(GatewayVariant.TOLLGATE_KEYS_NO_FAILURE_LIMIT);

        assertThat(difference(anonymous, tollgate)).containsOnly(
                Map.entry("tollgate.routes.bench.identity", "anonymous"),
                Map.entry("tollgate.client-address.trusted-proxies", "127.0.0.1/32"));
        assertThat(difference(jwt, tollgate)).containsOnly(Map.entry("tollgate.jwt.jwk-set-uri", JWKS));
        // The failure limit at its defaults on one, off on the other, and nothing else of it set.
        assertThat(keys.keySet()).noneMatch(key -> key.startsWith("tollgate.auth-failures."));
        assertThat(difference(noLimit, keys)).containsOnly(Map.entry("tollgate.auth-failures.enabled", "false"));
        assertThat(keys).containsEntry("bench.known-keys.prefix", "tenant-")
                .containsEntry("bench.known-keys.count", "100")
                .containsEntry("bench.known-keys.names", "well-keyed,variant-check,hot-tenant");
        assertThat(GatewayVariant.TOLLGATE_KEYS.hasPlugin()).isTrue();
        assertThat(GatewayVariant.TOLLGATE_JWT.hasPlugin()).isFalse();
    }

    private static Map<String, String> of(GatewayVariant variant) {
        return GatewayProperties.of(variant, 8080, "http://127.0.0.1:9", 6379, JWKS, 100);
    }

    private static Map<String, String> difference(Map<String, String> a, Map<String, String> b) {
        Map<String, String> d = new java.util.HashMap<>(a);
        d.entrySet().removeIf(e -> e.getValue().equals(b.get(e.getKey())));
        return d;
    }
}
