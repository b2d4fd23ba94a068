package dev.tollgate.gateway;

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
}
