package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionOutcome;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A hot key through the gateway: once leased, its decisions are made from the lease and say so in
 * the metrics ({@code source="lease"}), without counting as Redis round trips or breaker calls.
 */
class HotKeyLeaseTest {

    private static final int REQUESTS = 400;

    @Test
    void decisionsFromALeaseAreCountedAsLeaseNotAsRedisRoundTrips() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> p = RunningGateway.leasingOn(redis);
            p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
            p.putAll(RunningGateway.rule(0, "hot", "create-order", 100_000, 100_000));
            try (RunningGateway gateway = RunningGateway.start(p)) {
                for (int i = 0; i < REQUESTS; i++) {
                    assertThat(gateway.send("POST", "/orders", "hot").statusCode()).isEqualTo(200);
                }
                DecisionMetrics metrics = gateway.context().getBean(DecisionMetrics.class);
                double lease = metrics.count(DecisionSource.LEASE, DecisionOutcome.ALLOWED);
                double viaRedis = metrics.count(DecisionSource.REDIS, DecisionOutcome.ALLOWED);
                assertThat(lease + viaRedis).isEqualTo(REQUESTS);
                assertThat(lease).isGreaterThan(REQUESTS / 2.0);

                // Only the requests that called Redis are latency samples and breaker calls.
                MeterRegistry meters = gateway.context().getBean(MeterRegistry.class);
                assertThat(meters.get("tollgate.redis.latency").timer().count()).isEqualTo((long) viaRedis);
                assertThat(meters.get("resilience4j.circuitbreaker.calls").tag("kind", "successful").timer().count())
                        .isEqualTo((long) viaRedis);
                assertThat(gateway.management("/actuator/prometheus").body())
                        .contains("tollgate_decisions_total{outcome=\"allowed\",route=\"create-order\",source=\"lease\"} "
                                + lease);
            }
        }
    }
}
