package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request is charged to the route it really reaches: the path is normalised once, before routes
 * are matched, and route, rule and backend all see that one path; what cannot be normalised safely
 * is refused. Requests go over a raw socket, so the paths reach the gateway exactly as written.
 */
class PathNormalizationTest {

    private static final AtomicInteger TENANTS = new AtomicInteger();

    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
        Map<String, Object> p = new HashMap<>();
        p.put("tollgate.source", "static");
        p.put("spring.data.redis.port", Integer.toString(redis.port()));
        p.put("tollgate.redis.timeout", "5s");
        p.put("tollgate.default-rule.capacity", "1000");
        p.put("tollgate.default-rule.refill-per-second", "0.001");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        // Any method, as in dev mode: the route an attacker would enter by.
        String catalog = "spring.cloud.gateway.server.webflux.routes[1].";
        p.put(catalog + "id", "catalog");
        p.put(catalog + "uri", upstream.uri());
        p.put(catalog + "predicates[0]", "Path=/catalog/**");
        p.putAll(RunningGateway.rule(0, "shop-a", "create-order", 2, 0.001));
        gateway = RunningGateway.start(p);
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(gateway, upstream, redis);
    }

    private static String freshTenant() {
        return "path-tenant-" + TENANTS.incrementAndGet();
    }

    /** The route the rate-limit headers of an admitted request name. */
    private static String chargedRoute(RawHttp.Response response) {
        String policy = response.header("RateLimit-Policy");
        assertThat(policy).as("RateLimit-Policy of a %d response", response.status()).isNotNull();
        return policy.substring(1, policy.indexOf('"', 1));
    }

    @Test
    void theIssuesExample_dotSegmentsIntoAnotherRoute_isChargedToThatRouteAndForwardedNormalised() {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RawHttp.Response r = RawHttp.send(gateway.port(), "POST", "/catalog/../orders", "shop-a");
            statuses.add(r.status());
            if (r.status() == 200) {
                assertThat(chargedRoute(r)).isEqualTo("create-order");
                assertThat(upstream.last().target()).isEqualTo("/orders");
            }
        }
        // create-order's burst of 2, not the catalog's default of 1000
        assertThat(statuses).containsExactly(200, 200, 429);
    }

    @ParameterizedTest(name = "{0} {1} -> {2} as {3}")
    @CsvSource({
            "POST, /catalog/../orders,                create-order, /orders",
            "POST, /catalog/./../orders,              create-order, /orders",
            "POST, /catalog/a/b/../../../orders,      create-order, /orders",
            "POST, /catalog//../orders,               create-order, /orders",
            "POST, /catalog/a//..//../orders,         create-order, /orders",
            "POST, //orders,                          create-order, /orders",
            "POST, /./orders,                         create-order, /orders",
            "POST, /catalog/../orders?q=a/../b,       create-order, /orders?q=a/../b",
            "GET,  /catalog/items/./42,               catalog,      /catalog/items/42",
            "GET,  /catalog/items/42/.,               catalog,      /catalog/items/42/",
            "GET,  /catalog/a/b/..,                   catalog,      /catalog/a/",
            "GET,  /catalog/./caf%C3%A9/a%20b,        catalog,      /catalog/caf%C3%A9/a%20b",
            "GET,  /catalog/x/../100%25?q=%2e%2e,     catalog,      /catalog/100%25?q=%2e%2e",
    })
    void dotSegmentsAndEmptySegmentsAreResolvedBeforeRouting(String method, String sent, String route, String forwarded) {
        RawHttp.Response r = RawHttp.send(gateway.port(), method, sent, freshTenant());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(chargedRoute(r)).isEqualTo(route);
        assertThat(upstream.last().target()).isEqualTo(forwarded);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "/catalog/a.b/..c/c../...",
            "/catalog/%41%42",
            "/catalog/a%2eb",
            "/catalog/100%25",
            "/catalog/caf%C3%A9",
            "/catalog/x?path=../../orders&sep=%2F",
    })
    void pathsWithNothingToNormaliseAreForwardedAsSent(String sent) {
        RawHttp.Response r = RawHttp.send(gateway.port(), "GET", sent, freshTenant());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(chargedRoute(r)).isEqualTo("catalog");
        assertThat(upstream.last().target()).isEqualTo(sent);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            // encoded dot-segments, in every case mix and at every depth of encoding
            "/catalog/%2e%2e/orders",
            "/catalog/%2E%2E/orders",
            "/catalog/.%2e/orders",
            "/catalog/%2e./orders",
            "/catalog/%2e/../../orders",
            "/catalog/%252e%252e/orders",
            "/catalog/%25252E%25252E/orders",
            // encoded slashes and backslashes: a segment boundary only some backends see
            "/catalog/..%2forders",
            "/catalog%2F..%2Forders",
            "/catalog/%252f",
            "/catalog/..%5corders",
            "/catalog/..%5Corders",
            // path parameters: Tomcat drops them, so ..;x is a dot-segment there and ;x an empty one
            "/catalog/..;/orders",
            "/catalog/..;x=1/orders",
            "/catalog/;x/../../orders",
            "/orders;jsessionid=1",
            "/catalog/%3b/orders",
            "/catalog/..%3B/orders",
            // above the root
            "/../orders",
            "/catalog/../../orders",
            // control characters, encoded or not
            "/catalog/%00/../orders",
            "/catalog/a%0d%0aX-Injected:1",
            "/catalog/a%7f",
    })
    void whatCannotBeNormalisedSafelyIs400ProblemAndReachesNothing(String sent) {
        String tenant = freshTenant();
        int before = upstream.requests();
        RawHttp.Response r = RawHttp.send(gateway.port(), "POST", sent, tenant);
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(r.body()).contains("\"type\":\"urn:tollgate:problem:invalid-path\"").contains("\"status\":400");
        assertThat(upstream.requests()).isEqualTo(before);
        assertThat(redis.command("EXISTS", "rl:{" + tenant + "}:catalog", "rl:{" + tenant + "}:create-order"))
                .isEqualTo(":0");
    }

    /**
     * A raw backslash is not allowed in a URI at all: Spring's server adapter answers 400 before any
     * filter runs (so without a problem body), and the request goes nowhere either.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/catalog/..\\orders", "/catalog\\..\\orders"})
    void aRawBackslashIs400AndReachesNothing(String sent) {
        String tenant = freshTenant();
        int before = upstream.requests();
        assertThat(RawHttp.send(gateway.port(), "POST", sent, tenant).status()).isEqualTo(400);
        assertThat(upstream.requests()).isEqualTo(before);
        assertThat(redis.command("EXISTS", "rl:{" + tenant + "}:catalog", "rl:{" + tenant + "}:create-order"))
                .isEqualTo(":0");
    }
}
