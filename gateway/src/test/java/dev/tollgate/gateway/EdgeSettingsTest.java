package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The edge's switches: each protection can be turned off or renamed, and does what it says then. */
class EdgeSettingsTest {

    private static RedisServer redis;
    // One per gateway: a closing gateway takes Reactor Netty's shared event loops with it.
    private TestUpstream upstream;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void startUpstream() {
        upstream = new TestUpstream();
    }

    @AfterEach
    void stopUpstream() {
        upstream.close();
    }

    private Map<String, Object> properties(Map<String, Object> settings) {
        Map<String, Object> p = new HashMap<>(settings);
        p.put("tollgate.source", "static");
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.redis.timeout", "5s");
        p.put("tollgate.default-rule.capacity", "100");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        p.putAll(RunningGateway.route(1, "catalog", "POST", "/catalog/**", upstream.uri()));
        return p;
    }

    private static RawHttp.Response post(RunningGateway gateway, String path, String extraHeaders) {
        try (RawHttp http = RawHttp.connect(gateway.port(), 10_000)) {
            http.write("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: shop-a\r\n" + extraHeaders
                    + "Content-Length: 0\r\nConnection: close\r\n\r\n");
            return http.readResponse();
        }
    }

    @Test
    void theTenantHeaderCanBeRenamed() {
        try (RunningGateway gateway = RunningGateway.start(properties(Map.of(
                "tollgate.forwarding.tenant-header", "X-Caller")))) {
            assertThat(post(gateway, "/orders", "X-Caller: someone-else\r\nX-Tenant-Id: kept\r\n").status())
                    .isEqualTo(200);
            TestUpstream.Received received = upstream.last();
            assertThat(received.header("X-Caller")).containsExactly("shop-a");
            assertThat(received.header("X-Tenant-Id")).containsExactly("kept"); // not Tollgate's header any more
            assertThat(received.header("X-Api-Key")).isEmpty();
        }
    }

    @Test
    void theTollgateApplicationKeepsItsEdgeWithTheLimiterOrTheGlobalFilterOff() {
        for (String off : new String[] {"tollgate.enabled", "tollgate.global-filter.enabled"}) {
            try (RunningGateway gateway = RunningGateway.start(properties(Map.of(off, "false")))) {
                assertThat(post(gateway, "/catalog/a;jsessionid=1", "").status()).as(off).isEqualTo(400);
                assertThat(post(gateway, "/catalog/a%2Fb", "").status()).as(off).isEqualTo(400);
                assertThat(post(gateway, "/catalog/x/../y", "X-Tenant-Id: forged\r\nX_Tenant_Id: forged\r\n")
                        .status()).as(off).isEqualTo(200);
                TestUpstream.Received received = upstream.last();
                assertThat(received.target()).isEqualTo("/catalog/y");
                assertThat(received.header("X-Api-Key")).as(off).isEmpty();
                // Nothing sets the tenant header with the global filter off, but a client's own never passes.
                assertThat(received.header("X-Tenant-Id")).as(off).isEmpty();
                assertThat(received.header("X_Tenant_Id")).as(off).isEmpty();
            }
        }
    }

    @Test
    void withEverySwitchOffRequestsAreRoutedAndForwardedAsSent() {
        try (RunningGateway gateway = RunningGateway.start(properties(Map.of(
                "tollgate.paths.normalize", "false",
                "tollgate.forwarding.strip-api-key", "false",
                "tollgate.forwarding.tenant-header", "")))) {
            RawHttp.Response r = post(gateway, "/catalog/../orders", "X-Tenant-Id: as-sent\r\n");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("RateLimit-Policy")).startsWith("\"catalog\"");
            TestUpstream.Received received = upstream.last();
            assertThat(received.target()).isEqualTo("/catalog/../orders");
            assertThat(received.header("X-Api-Key")).containsExactly("shop-a");
            assertThat(received.header("X-Tenant-Id")).containsExactly("as-sent");
        }
    }
}
