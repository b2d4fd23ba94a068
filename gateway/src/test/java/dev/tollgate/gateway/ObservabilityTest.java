package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionOutcome;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What clients and operators see: headers, shadow rules, metrics, readiness. */
class ObservabilityTest {

    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway gateway;
    private static RunningGateway quiet;

    private static Map<String, Object> properties() {
        Map<String, Object> p = new HashMap<>();
        p.put("tollgate.source", "static");
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.redis.timeout", "5s");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        p.putAll(RunningGateway.rule(0, "headers", "create-order", 5, 1));
        p.putAll(RunningGateway.rule(1, "dry", "create-order", 1, 0.001));
        p.put("tollgate.rules[1].shadow", "true");
        p.putAll(RunningGateway.rule(2, "tagged", "create-order", 5, 1));
        p.putAll(RunningGateway.rule(3, "tight", "create-order", 1, 0.001));
        p.put("tollgate.metrics.tenant-tags[0]", "tagged");
        return p;
    }

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
        gateway = RunningGateway.start(properties());
        Map<String, Object> off = properties();
        off.put("tollgate.headers.x-rate-limit", "false");
        off.put("tollgate.headers.ietf", "false");
        quiet = RunningGateway.start(off);
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(quiet, gateway, upstream, redis);
    }

    @Test
    void admittedResponsesDescribeTheTenantsOwnBucketInBothHeaderStyles() {
        HttpResponse<String> r = gateway.send("POST", "/orders", "headers");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-RateLimit-Limit")).hasValue("5");
        assertThat(r.headers().firstValue("X-RateLimit-Remaining")).hasValue("4");
        assertThat(r.headers().firstValue("X-RateLimit-Reset")).hasValue("1"); // one token short, 1 token/s
        assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue("\"create-order\";q=5;w=5");
        assertThat(r.headers().firstValue("RateLimit")).hasValue("\"create-order\";r=4;t=1");
    }

    @Test
    void rejectionsCarryTheHeadersRetryAfterAndAProblem() {
        gateway.send("POST", "/orders", "tight");
        HttpResponse<String> r = gateway.send("POST", "/orders", "tight");
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1000");
        assertThat(r.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(r.headers().firstValue("RateLimit")).hasValue("\"create-order\";r=0;t=1000");
        assertThat(JsonPath.<Integer>read(r.body(), "$.status")).isEqualTo(429);
        assertThat(JsonPath.<Integer>read(r.body(), "$.retryAfterSeconds")).isEqualTo(1000);
        assertThat(JsonPath.<String>read(r.body(), "$.title")).isEqualTo("Too Many Requests");
    }

    @Test
    void headersCanBeSwitchedOffButRetryAfterStays() {
        HttpResponse<String> ok = quiet.send("POST", "/orders", "headers-off");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().map().keySet()).noneMatch(h -> h.toLowerCase().contains("ratelimit"));
        quiet.send("POST", "/orders", "tight-off");
        HttpResponse<String> rejected;
        do {
            rejected = quiet.send("POST", "/orders", "tight-off");
        } while (rejected.statusCode() == 200);
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
        assertThat(rejected.headers().map().keySet()).noneMatch(h -> h.toLowerCase().contains("ratelimit"));
    }

    @Test
    void aShadowRuleNeverRejectsShowsNothingAndIsCounted() {
        int before = upstream.requests();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = gateway.send("POST", "/orders", "dry");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().map().keySet()).noneMatch(h -> h.toLowerCase().contains("ratelimit"));
        }
        assertThat(upstream.requests() - before).isEqualTo(5);
        DecisionMetrics metrics = gateway.context().getBean(DecisionMetrics.class);
        assertThat(metrics.count(DecisionSource.REDIS, DecisionOutcome.SHADOW_REJECTED)).isEqualTo(4);
        assertThat(gateway.management("/actuator/prometheus").body())
                .contains("tollgate_decisions_total{outcome=\"shadow-rejected\",route=\"create-order\",source=\"redis\"} 4.0");
    }

    @Test
    void onlyListedTenantsGetATenantTag() {
        gateway.send("POST", "/orders", "tagged");
        gateway.send("POST", "/orders", "headers");
        String prometheus = gateway.management("/actuator/prometheus").body();
        assertThat(prometheus).contains(
                "tollgate_tenant_decisions_total{outcome=\"allowed\",route=\"create-order\",tenant=\"tagged\"} 1.0");
        assertThat(prometheus).doesNotContain("tenant=\"headers\"");
        assertThat(prometheus).doesNotContain("tenant=\"dry\"");
    }

    @Test
    void readinessIncludesTheRulesAndLivenessDependsOnNothingOutside() {
        HttpResponse<String> readiness = gateway.management("/actuator/health/readiness");
        assertThat(readiness.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(readiness.body(), "$.components.rules.status")).isEqualTo("UP");
        HttpResponse<String> liveness = gateway.management("/actuator/health/liveness");
        assertThat(liveness.statusCode()).isEqualTo(200);
        // The liveness group is the JVM's own state alone: no Redis, no database, no rules.
        assertThat(liveness.body()).doesNotContain("rateLimiter").doesNotContain("directory").doesNotContain("rules");
    }

    @Test
    void redisLatencyAndBreakerStateAreExposed() {
        gateway.send("POST", "/orders", "latency");
        String prometheus = gateway.management("/actuator/prometheus").body();
        assertThat(prometheus)
                .containsPattern("tollgate_redis_latency_seconds_count [1-9]")
                .containsPattern("tollgate_decision_duration_seconds_count [1-9]")
                .containsPattern("tollgate_decision_duration_seconds_bucket\\{le=\"[0-9.e-]+\"}")
                .contains("resilience4j_circuitbreaker_state{name=\"redis\",state=\"closed\"} 1.0");
    }
}
