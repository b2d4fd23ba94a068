package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import dev.tollgate.spring.instances.LiveInstances;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;

/**
 * {@code tollgate.enabled=false} turns the limiter off and nothing else: requests are routed as
 * usual, none is limited, and no bucket is written. The benchmark uses it as its no-limiter baseline.
 */
class LimiterSwitchTest {

    /** A gateway on {@code redis} with the static source and one route to {@code upstream}. */
    private static Map<String, Object> properties(RedisServer redis, TestUpstream upstream) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("tollgate.source", "static");
        properties.put("spring.data.redis.host", redis.host());
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.putAll(RunningGateway.route(0, "catalog", "GET", "/catalog/**", upstream.uri()));
        return properties;
    }

    @Test
    void withTheSwitchOffEveryRequestIsForwardedUnlimited() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> properties = properties(redis, upstream);
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

    @Test
    void aGatewayWithTheSwitchOffIsNotCountedAmongTheInstancesThatShareTheLimit() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> properties = properties(redis, upstream);
            properties.put("tollgate.fallback.heartbeat-interval", "100ms");
            properties.put("tollgate.fallback.heartbeat-ttl", "1s");
            Map<String, Object> off = new HashMap<>(properties);
            off.put("tollgate.enabled", "false");
            try (RunningGateway switchedOff = RunningGateway.start(off)) {
                assertThat(switchedOff.context().getBeansOfType(LiveInstances.class)).isEmpty();
                try (RunningGateway limiting = RunningGateway.start(properties)) {
                    LiveInstances instances = limiting.context().getBean(LiveInstances.class);
                    await().atMost(Duration.ofSeconds(10)).until(instances::isLearnt);
                    // The switched-off gateway has been up for this one's whole start (seconds, i.e.
                    // dozens of its 100 ms heartbeat intervals): had it beaten, it would be counted.
                    instances.beatNow();
                    assertThat(instances.count()).isEqualTo(1);
                    assertThat(redis.command("ZCARD", "tollgate:instances")).isEqualTo(":1");
                }
            }
        }
    }
}
