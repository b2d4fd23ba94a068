package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code tollgate.enabled=false} turns the limiter off and nothing else: requests are routed as
 * usual, none is limited, and no bucket is written. The benchmark uses it as its no-limiter baseline.
 */
class LimiterSwitchTest {

    @Test
    void withTheSwitchOffEveryRequestIsForwardedUnlimited() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> properties = new HashMap<>();
            properties.put("tollgate.source", "static");
            properties.put("spring.data.redis.host", redis.host());
            properties.put("spring.data.redis.port", Integer.toString(redis.port()));
            properties.putAll(RunningGateway.route(0, "catalog", "GET", "/catalog/**", upstream.uri()));
            properties.put("tollgate.default-rule.capacity", "1");
            properties.put("tollgate.default-rule.refill-per-second", "0.001");
            properties.put("tollgate.enabled", "false");
            try (RunningGateway gateway = RunningGateway.start(properties)) {
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> response = gateway.send("GET", "/catalog/x", "shop-a");
                    assertThat(response.statusCode()).isEqualTo(200);
                    assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
                }
                assertThat(upstream.requests()).isEqualTo(3);
                assertThat(redis.command("KEYS", "rl:{shop-a}*")).isEmpty();
            }
        }
    }
}
