package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The default rule as shipped, with no {@code tollgate.default-rule.*} set anywhere: a burst of 20
 * and 10 tokens a second, for every tenant and route without a rule of its own.
 */
class ShippedDefaultRuleTest {

    @Test
    void aTenantWithoutARuleGetsABurstOf20RefilledAt10PerSecond() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> properties = new HashMap<>();
            properties.put("tollgate.source", "static");
            properties.put("spring.data.redis.port", Integer.toString(redis.port()));
            properties.put("tollgate.redis.timeout", "5s"); // Redis decides, however cold the JVM
            properties.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
            try (RunningGateway gateway = RunningGateway.start(properties)) {
                assertThat(gateway.context().getBean(RuleBook.class).ruleFor("anyone", "create-order"))
                        .isEqualTo(RateLimitRule.of(20, 10));

                long start = System.nanoTime();
                HttpResponse<String> first = gateway.send("POST", "/orders", "anyone");
                assertThat(first.statusCode()).isEqualTo(200);
                assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("20");
                assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("19");
                // 20 tokens at 10 a second: 2 s to fill from empty.
                assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"create-order\";q=20;w=2");

                int admitted = 1;
                HttpResponse<String> last = first;
                while (last.statusCode() == 200 && admitted < 1000) {
                    last = gateway.send("POST", "/orders", "anyone");
                    admitted += last.statusCode() == 200 ? 1 : 0;
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                assertThat(last.statusCode()).isEqualTo(429);
                // The burst, plus what 10 tokens a second refilled while the requests were sent (real
                // time: Redis's clock); the bound is generous, a slow machine only makes it looser.
                assertThat(admitted).isBetween(20, 20 + (int) Math.ceil(10 * seconds));
                assertThat(last.headers().firstValue("Retry-After")).hasValue("1");
            }
        }
    }
}
