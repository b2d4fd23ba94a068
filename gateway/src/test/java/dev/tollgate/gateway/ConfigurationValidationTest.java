package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.testkit.RedisServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A bad rule stops the gateway at start, naming the property and the value. */
class ConfigurationValidationTest {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static Map<String, Object> withRedis(Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>(extra);
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.put("tollgate.source", "static");
        return properties;
    }

    @Test
    void aZeroCapacityIsRefused() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(RunningGateway.rule(0, "t", "r", 0, 1))))
                .hasStackTraceContaining("tollgate.rules[0]")
                .hasStackTraceContaining("capacity must be between 1 and 1000000000, was 0");
    }

    @Test
    void aNegativeDefaultRefillIsRefused() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.default-rule.refill-per-second", "-1"))))
                .hasStackTraceContaining("tollgate.default-rule")
                .hasStackTraceContaining("refillPerSecond must be > 0 and <= 1e9, was -1.0");
    }

    @Test
    void duplicateRulesAreRefused() {
        Map<String, Object> properties = new HashMap<>(RunningGateway.rule(0, "t", "r", 5, 1));
        properties.putAll(RunningGateway.rule(1, "t", "r", 6, 1));
        assertThatThrownBy(() -> RunningGateway.start(withRedis(properties)))
                .hasStackTraceContaining("duplicate rule for tenant 't' and route 'r'");
    }

    @Test
    void anAdminTokenShorterThan16CharactersIsRefusedWithoutQuotingIt() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.admin.token", "fifteen-chars!!"))))
                .hasStackTraceContaining("tollgate.admin.token must be at least 16 characters, it has 15")
                .satisfies(e -> assertThat(stackTrace(e)).doesNotContain("fifteen-chars!!"));
    }

    @Test
    void aShortAdminTokenIsAcceptedWhereShortTokensAreExplicitlyAllowed() {
        try (RunningGateway gateway = RunningGateway.start(withRedis(Map.of(
                "tollgate.admin.token", "dev", "tollgate.admin.allow-short-token", "true")))) {
            assertThat(gateway.port()).isPositive();
        }
    }

    @Test
    void aTenantHeaderThatIsNoHeaderNameIsRefused() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.forwarding.tenant-header", "X Tenant"))))
                .hasStackTraceContaining("tollgate.forwarding.tenant-header must be a header name, was 'X Tenant'");
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.forwarding.tenant-header", "x-api-key"))))
                .hasStackTraceContaining("tollgate.forwarding.tenant-header must differ from tollgate.api-key-header");
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter out = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }
}
