package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The multi-limit path when Redis is gone: two gateways keep answering every request, each on its
 * share of each limit (half of the day quota here), all or nothing, with the same headers, carrying
 * on from what Redis last told each of them (see {@code LocalMultiLimitStore}).
 */
class MultiLimitFallbackTest {

    private static RunningGateway gateway(RedisServer redis, TestUpstream upstream) {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.data.redis.host", redis.host());
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.source", "static");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        p.put("tollgate.redis.timeout", "2s");
        p.put("tollgate.redis.connect-retry-delay", "200ms");
        p.put("tollgate.redis.reconnect-max-delay", "200ms");
        p.put("tollgate.fallback.heartbeat-interval", "200ms");
        p.put("tollgate.fallback.heartbeat-ttl", "1s");
        return RunningGateway.start(p, context -> context.registerBean(LimitBook.class, () -> MultiLimitGatewayTest.BOOK));
    }

    private static int admitted(RunningGateway gateway, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            HttpResponse<String> r = gateway.send("POST", "/orders", "fallback");
            assertThat(r.statusCode()).isIn(200, 429);
            assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue(
                    "\"per-route\";q=100;w=100000, \"total\";q=100;w=100000, \"daily\";q=10;w=86400");
            if (r.statusCode() == 429) {
                assertThat(r.body()).contains("\"limit\":\"daily\"");
                assertThat(r.headers().firstValue("Retry-After")).isPresent();
            } else {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void withRedisGoneEachGatewayDecidesOnItsShareOfEveryLimit() {
        try (RedisServer redis = RedisServer.start(); TestUpstream upstream = new TestUpstream();
             RunningGateway a = gateway(redis, upstream); RunningGateway b = gateway(redis, upstream)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> a.context().getBean(LiveInstances.class).count() == 2
                    && b.context().getBean(LiveInstances.class).count() == 2);
            assertThat(admitted(a, 2)).isEqualTo(2);
            DecisionMetrics metricsA = a.context().getBean(DecisionMetrics.class);
            DecisionMetrics metricsB = b.context().getBean(DecisionMetrics.class);
            assertThat(metricsA.count(DecisionSource.REDIS)).isEqualTo(2);

            redis.kill();

            // Day quota 10 on 2 instances, 5 each at most: a carries on from Redis's last answer (8
            // left, so 4), b never heard from Redis today and has its whole share.
            assertThat(admitted(a, 8)).isEqualTo(4);
            assertThat(admitted(b, 8)).isEqualTo(5);
            assertThat(metricsA.count(DecisionSource.LOCAL_FALLBACK)).isEqualTo(8);
            assertThat(metricsB.count(DecisionSource.LOCAL_FALLBACK)).isEqualTo(8);
            assertThat(metricsA.limitRejections("daily", false)).isEqualTo(4);
        }
    }
}
