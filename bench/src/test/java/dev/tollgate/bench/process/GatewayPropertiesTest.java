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
}
