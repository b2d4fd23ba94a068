package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client on one keep-alive connection that sends its next request the moment it has an answer,
 * mixing admitted requests (forwarded upstream) and 429s (answered by the gateway itself). With
 * Reactor Netty 1.3.6 such a connection stopped being read after a few hundred requests: a request
 * that arrived before the previous exchange was wound up was queued, answered at once, and nothing
 * resumed reading, so the next one waited for the client's timeout. Every request here must be
 * answered, with the outcome its tenant's bucket calls for.
 */
class KeepAliveConnectionTest {

    private static final int TENANTS = 1_250;
    private static final int CAPACITY = 3;

    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
        Map<String, Object> p = new HashMap<>();
        p.put("spring.data.redis.host", redis.host());
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.source", "static");
        // Outcomes are Redis's: a cold JVM must not push a decision past the timeout.
        p.put("tollgate.redis.timeout", "5s");
        p.putAll(RunningGateway.route(0, "catalog", "GET", "/catalog/**", upstream.uri()));
        p.put("tollgate.default-rule.capacity", Integer.toString(CAPACITY));
        p.put("tollgate.default-rule.refill-per-second", "0.001");
        gateway = RunningGateway.start(p);
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
    void everyRequestOnAReusedConnectionIsAnsweredWhetherAdmittedOrRejected() {
        int before = upstream.requests();
        int admitted = 0;
        int rejected = 0;
        for (int tenant = 0; tenant < TENANTS; tenant++) {
            for (int i = 0; i <= CAPACITY; i++) {
                // Times out (and fails the test) if the connection stops being read.
                int status = gateway.send("GET", "/catalog/item", "keep-alive-" + tenant).statusCode();
                if (status == 200) {
                    admitted++;
                } else if (status == 429) {
                    rejected++;
                }
            }
        }
        assertThat(admitted).isEqualTo(TENANTS * CAPACITY);
        assertThat(rejected).isEqualTo(TENANTS);
        assertThat(upstream.requests() - before).isEqualTo(TENANTS * CAPACITY);
    }
}
