package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The filter end to end: real HTTP into the gateway, real Redis behind it, a real backend in front.
 * Refill rates are slow (or the expected figure has a wide margin) so that the real clock, which
 * Redis uses, cannot change an outcome while a test runs.
 */
// Retry-After is exact to the second on Redis's clock, which keeps running between two requests:
// more than a second between them (a loaded machine) would make 100 s read 99. So this class runs
// with the timing tests, alone on the cores.
@NeedsTheCores
class RateLimitFilterTest {

    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
        Map<String, Object> properties = new HashMap<>();
        properties.put("spring.data.redis.host", redis.host());
        properties.put("tollgate.source", "static");
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        // These tests are about Redis's decisions: a cold JVM must not push any past the timeout.
        properties.put("tollgate.redis.timeout", "5s");
        properties.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        properties.putAll(RunningGateway.route(1, "catalog", "GET", "/catalog/**", upstream.uri()));
        properties.put("tollgate.default-rule.capacity", "3");
        properties.put("tollgate.default-rule.refill-per-second", "0.001");
        properties.putAll(RunningGateway.rule(0, "shop-a", "create-order", 2, 0.01));
        properties.putAll(RunningGateway.rule(1, "shop-b", "*", 1, 0.001));
        properties.putAll(RunningGateway.rule(2, "pacer", "create-order", 1, 0.4));
        gateway = RunningGateway.start(properties);
    }

    @AfterEach
    void everyDecisionCameFromRedis() {
        DecisionMetrics metrics = gateway.context().getBean(DecisionMetrics.class);
        assertThat(metrics.count(DecisionSource.LOCAL_FALLBACK)).isZero();
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (upstream != null) {
            upstream.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void theReadmeDemoAdmitsTheBurstThenAnswers429WithoutCallingTheBackend() {
        int before = upstream.requests();

        HttpResponse<String> first = gateway.send("POST", "/orders", "shop-a");
        HttpResponse<String> second = gateway.send("POST", "/orders", "shop-a");
        HttpResponse<String> third = gateway.send("POST", "/orders", "shop-a");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("upstream\n");
        assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");

        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(third.headers().firstValue("Retry-After")).hasValue("100"); // 0.01 token/s
        assertThat(third.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(third.body()).isEqualTo("{\"type\":\"urn:tollgate:problem:rate-limited\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Rate limit of route 'create-order' exceeded; retry in 100 s.\","
                + "\"retryAfterSeconds\":100}");

        assertThat(upstream.requests() - before).isEqualTo(2);
    }

    @Test
    void retryAfterIsRoundedUpToWholeSeconds() {
        // 0.4 token/s: the next token is 2.5 s away, so Retry-After must say 3, not 2.
        assertThat(gateway.send("POST", "/orders", "pacer").statusCode()).isEqualTo(200);
        HttpResponse<String> rejected = gateway.send("POST", "/orders", "pacer");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).hasValue("3");
    }

    @Test
    void aMissingApiKeyIs401ProblemAndNeverReachesTheBackend() {
        int before = upstream.requests();
        HttpResponse<String> response = gateway.send("POST", "/orders", null);
        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("ApiKey header=\"X-Api-Key\"");
        assertThat(response.body()).isEqualTo("{\"type\":\"urn:tollgate:problem:missing-api-key\","
                + "\"title\":\"Unauthorized\",\"status\":401,\"detail\":\"The X-Api-Key header is required.\"}");
        assertThat(gateway.send("POST", "/orders", "   ").statusCode()).isEqualTo(401);
        assertThat(upstream.requests()).isEqualTo(before);
    }

    @Test
    void anUnknownTenantGetsTheDefaultRule() {
        for (int i = 0; i < 3; i++) {
            assertThat(gateway.send("POST", "/orders", "newcomer").statusCode()).isEqualTo(200);
        }
        assertThat(gateway.send("POST", "/orders", "newcomer").statusCode()).isEqualTo(429);
    }

    @Test
    void aRouteWithoutARuleOfItsOwnGetsTheDefaultRule() {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = gateway.send("GET", "/catalog/items", "shop-a");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(2 - i));
        }
        assertThat(gateway.send("GET", "/catalog/items", "shop-a").statusCode()).isEqualTo(429);
    }

    @Test
    void aTenantWideRuleCoversEveryRouteSeparately() {
        assertThat(gateway.send("POST", "/orders", "shop-b").statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", "shop-b").statusCode()).isEqualTo(429);
        // same rule, but its own bucket on the other route
        assertThat(gateway.send("GET", "/catalog/x", "shop-b").statusCode()).isEqualTo(200);
        assertThat(gateway.send("GET", "/catalog/x", "shop-b").statusCode()).isEqualTo(429);
    }

    @Test
    void oneTenantRunningOutLeavesOthersAlone() {
        for (int i = 0; i < 3; i++) {
            gateway.send("GET", "/catalog/a", "greedy");
        }
        assertThat(gateway.send("GET", "/catalog/a", "greedy").statusCode()).isEqualTo(429);
        assertThat(gateway.send("GET", "/catalog/a", "modest").statusCode()).isEqualTo(200);
    }

    /**
     * A client on one keep-alive connection that sends its next request the moment it has an answer,
     * mixing admitted requests (forwarded upstream) and 429s (answered by the gateway itself). With
     * Reactor Netty 1.3.6 such a connection stopped being read after a few hundred requests: a request
     * that arrived before the previous exchange was wound up was queued, answered at once, and nothing
     * resumed reading, so the next one waited for the client's timeout. Every request here must be
     * answered, with the outcome its tenant's bucket (the default rule, 3 tokens) calls for.
     */
    @Test
    void everyRequestOnAReusedConnectionIsAnsweredWhetherAdmittedOrRejected() {
        int tenants = 1_250;
        int capacity = 3;
        int before = upstream.requests();
        int admitted = 0;
        int rejected = 0;
        for (int tenant = 0; tenant < tenants; tenant++) {
            for (int i = 0; i <= capacity; i++) {
                // Times out (and fails the test) if the connection stops being read.
                int status = gateway.send("GET", "/catalog/item", "keep-alive-" + tenant).statusCode();
                if (status == 200) {
                    admitted++;
                } else if (status == 429) {
                    rejected++;
                }
            }
        }
        assertThat(admitted).isEqualTo(tenants * capacity);
        assertThat(rejected).isEqualTo(tenants);
        assertThat(upstream.requests() - before).isEqualTo(tenants * capacity);
    }

    @Test
    void decisionsAreKeptInRedisUnderTheDocumentedKeyWithAnExpiry() {
        gateway.send("GET", "/catalog/k", "keyed");
        assertThat(redis.command("HGET", "rl:{keyed}:catalog", "tokens")).isEqualTo("2000000");
        assertThat(Long.parseLong(redis.command("PTTL", "rl:{keyed}:catalog").substring(1))).isPositive();
    }

    @Test
    void unmatchedPathsAre404AndTakeNoToken() {
        assertThat(gateway.send("GET", "/nowhere", "lost").statusCode()).isEqualTo(404);
        assertThat(redis.command("EXISTS", "rl:{lost}:default")).isEqualTo(":0");
    }
}
