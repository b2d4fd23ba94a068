package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RedisKeys;
import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.spring.tenant.TenantResolver;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Who a request comes from, end to end on real Redis: identity per route, the client address (the
 * peer, or behind trusted proxies the forwarding header), anonymous callers in buckets of their own,
 * and failed authentication limited per address. Two gateways: {@code direct} trusts no proxy (every
 * test request comes from 127.0.0.1) and has Reactor Netty's own forwarded-header handling on, {@code proxied} trusts 127.0.0.1 and 10.0.0.0/8, as a gateway
 * behind a load balancer does. Refill rates are slow so the real clock cannot change an outcome.
 */
class IdentityGatewayTest {

    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway direct;
    private static RunningGateway proxied;

    /** "good-key" is shop-a's, "shop-b-key" shop-b's; every other key is unknown (401). */
    private static final TenantResolver KEYS = key -> switch (key) {
        case "good-key" -> TenantLookup.verified("shop-a");
        case "shop-b-key" -> TenantLookup.verified("shop-b");
        default -> TenantLookup.UNKNOWN_KEY;
    };

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
        Map<String, Object> common = new HashMap<>();
        common.put("spring.data.redis.host", redis.host());
        common.put("spring.data.redis.port", Integer.toString(redis.port()));
        common.put("tollgate.source", "static");
        common.put("tollgate.redis.timeout", "5s");
        common.putAll(RunningGateway.route(0, "orders", "POST", "/orders", upstream.uri()));
        common.putAll(RunningGateway.route(1, "catalog", "GET", "/catalog/**", upstream.uri()));
        common.putAll(RunningGateway.route(2, "sign-up", "POST", "/sign-up", upstream.uri()));
        common.putAll(RunningGateway.route(3, "status", "GET", "/status", upstream.uri()));
        common.put("tollgate.routes.catalog.identity", "optional");
        common.put("tollgate.routes.sign-up.identity", "anonymous");
        common.put("tollgate.routes.status.identity", "none");
        common.put("tollgate.default-rule.capacity", "3");
        common.put("tollgate.default-rule.refill-per-second", "0.001");
        common.putAll(RunningGateway.rule(0, "shop-a", "orders", 1_000, 0.001));
        common.put("tollgate.auth-failures.limit", "5");
        common.put("tollgate.auth-failures.period", "10m");

        Map<String, Object> directProperties = new HashMap<>(common);
        // Spring Boot's default on Kubernetes: the request's remote address becomes the left-most forwarded
        // one, which any client writes. The client address must come from the connection all the same.
        directProperties.put("server.forward-headers-strategy", "native");
        // anonymous callers of the direct gateway are on a plan of their own: 2 requests per route
        directProperties.put("tollgate.plans.anonymous[0].name", "per-address");
        directProperties.put("tollgate.plans.anonymous[0].scope", "each-route");
        directProperties.put("tollgate.plans.anonymous[0].capacity", "2");
        directProperties.put("tollgate.plans.anonymous[0].refill-per-second", "0.001");
        direct = RunningGateway.start(directProperties, context -> context.registerBean(TenantResolver.class, () -> KEYS));

        Map<String, Object> proxiedProperties = new HashMap<>(common);
        proxiedProperties.put("tollgate.client-address.trusted-proxies", "127.0.0.1/32, 10.0.0.0/8");
        proxied = RunningGateway.start(proxiedProperties, context -> context.registerBean(TenantResolver.class, () -> KEYS));
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {direct, proxied, upstream, redis}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    // closing the others matters more
                }
            }
        }
    }

    /** The Redis key of a bucket: the tenant escaped ({@code :} is {@code %3A}). */
    private static String bucket(String tenant, String route) {
        return RedisKeys.bucket(tenant, route);
    }

    private static boolean exists(String key) {
        return redis.command("EXISTS", key).equals(":1");
    }

    private static String tokens(String key) {
        return redis.command("HGET", key, "tokens");
    }

    @Test
    void aSpoofedForwardedForFromAnUntrustedPeerChangesNothing() {
        int admitted = 0;
        for (int i = 0; i < 6; i++) {
            // each request claims another address; the peer is 127.0.0.1 every time
            HttpResponse<String> response = direct.sendWithHeaders("POST", "/sign-up", "X-Forwarded-For", "198.51.100." + i,
                    "Forwarded", "for=198.51.100." + i);
            if (response.statusCode() == 200) {
                admitted++;
            } else {
                assertThat(response.statusCode()).isEqualTo(429);
            }
        }
        assertThat(admitted).as("the anonymous plan's 2 per address, once").isEqualTo(2);
        assertThat(exists(bucket("anon:127.0.0.1/32", "sign-up"))).isTrue();
        for (int i = 0; i < 6; i++) {
            assertThat(exists(bucket("anon:198.51.100." + i + "/32", "sign-up"))).isFalse();
        }
    }

    @Test
    void aChainThroughTwoTrustedProxiesTakesTheClientTheNearerProxyReported() {
        // forged by the client: 6.6.6.6; appended by proxy 10.1.1.1: the client's 198.51.100.7; by the
        // load balancer (the peer, 127.0.0.1): 10.1.1.1
        HttpResponse<String> response = proxied.sendWithHeaders("POST", "/sign-up",
                "X-Forwarded-For", "6.6.6.6, 198.51.100.7", "X-Forwarded-For", "10.1.1.1");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(tokens(bucket("anon:198.51.100.7/32", "sign-up"))).isEqualTo("2000000"); // default rule: 3, one taken
        assertThat(exists(bucket("anon:6.6.6.6/32", "sign-up"))).isFalse();
        assertThat(exists(bucket("anon:10.1.1.1/32", "sign-up"))).isFalse();
        // Forwarded is not the header this gateway's proxies write: a client's own is never read
        proxied.sendWithHeaders("POST", "/sign-up", "Forwarded", "for=203.0.113.99", "X-Forwarded-For", "198.51.100.8");
        assertThat(exists(bucket("anon:203.0.113.99/32", "sign-up"))).isFalse();
        assertThat(exists(bucket("anon:198.51.100.8/32", "sign-up"))).isTrue();
    }

    @Test
    void aThousandAddressesOfOneIpv6Slash64ShareOneBucket() {
        int admitted = 0;
        int rejected = 0;
        for (int i = 0; i < 1_000; i++) {
            String address = "2001:db8:77:1:" + Integer.toHexString(i) + ":" + Integer.toHexString(i * 7919 % 65536) + "::1";
            int status = proxied.sendWithHeaders("POST", "/sign-up", "X-Forwarded-For", address).statusCode();
            if (status == 200) {
                admitted++;
            } else if (status == 429) {
                rejected++;
            }
        }
        assertThat(admitted).as("one bucket of 3 for the whole /64").isEqualTo(3);
        assertThat(rejected).isEqualTo(997);
        // less than one token (in millionths) refilled while the test ran
        assertThat(Long.parseLong(tokens("rl:{anon%3A2001%3Adb8%3A77%3A1%3A%3A/64}:sign-up"))).isLessThan(1_000_000);
        // the next /64 is another caller
        assertThat(proxied.sendWithHeaders("POST", "/sign-up", "X-Forwarded-For", "2001:db8:77:2::1").statusCode()).isEqualTo(200);
    }

    @Test
    void aBogusKeyFloodTurnsInto429sAfterTheBudgetWhileAWellKeyedTenantIsServed() {
        double refusedBefore = refusedForFailures(proxied);
        int unauthorized = 0;
        int limited = 0;
        int served = 0;
        HttpResponse<String> firstLimited = null;
        for (int i = 0; i < 200; i++) {
            HttpResponse<String> bogus = proxied.sendWithHeaders("POST", "/orders", "X-Api-Key", "guess-" + i,
                    "X-Forwarded-For", "198.51.100.66");
            if (bogus.statusCode() == 401) {
                unauthorized++;
            } else if (bogus.statusCode() == 429) {
                limited++;
                if (firstLimited == null) {
                    firstLimited = bogus;
                }
            }
            if (i % 10 == 0) {
                HttpResponse<String> good = proxied.sendWithHeaders("POST", "/orders", "X-Api-Key", "good-key",
                        "X-Forwarded-For", "198.51.100.10");
                assertThat(good.statusCode()).as("the well-keyed tenant at request %d", i).isEqualTo(200);
                served++;
            }
        }
        assertThat(unauthorized).as("the budget: 5 failures").isEqualTo(5);
        assertThat(limited).isEqualTo(195);
        assertThat(refusedForFailures(proxied) - refusedBefore).as("tollgate.auth.failures.refused").isEqualTo(195);
        assertThat(served).isEqualTo(20);
        assertThat(firstLimited.headers().firstValue("Retry-After")).hasValue("120"); // 10 min / 5
        assertThat(firstLimited.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(firstLimited.body()).contains("\"type\":\"urn:tollgate:problem:authentication-failures\"");
        // the blocked address is refused before its key is looked up: even a good key waits
        assertThat(proxied.sendWithHeaders("POST", "/orders", "X-Api-Key", "good-key", "X-Forwarded-For", "198.51.100.66")
                .statusCode()).isEqualTo(429);
        // missing keys count too, and a public route stays open to the blocked address
        assertThat(proxied.sendWithHeaders("POST", "/sign-up", "X-Forwarded-For", "198.51.100.66").statusCode()).isEqualTo(200);
        for (int i = 0; i < 5; i++) {
            assertThat(proxied.sendWithHeaders("POST", "/orders", "X-Forwarded-For", "198.51.100.67").statusCode()).isEqualTo(401);
        }
        assertThat(proxied.sendWithHeaders("POST", "/orders", "X-Forwarded-For", "198.51.100.67").statusCode()).isEqualTo(429);
    }

    @Test
    void noneRoutesTakeNoToken() {
        for (int i = 0; i < 10; i++) {
            assertThat(direct.sendWithHeaders("GET", "/status").statusCode()).isEqualTo(200);
            HttpResponse<String> keyed = direct.sendWithHeaders("GET", "/status", "X-Api-Key", "shop-b-key");
            assertThat(keyed.statusCode()).isEqualTo(200);
            assertThat(keyed.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
            assertThat(direct.sendWithHeaders("GET", "/status", "X-Api-Key", "bogus").statusCode()).as("keys not even read")
                    .isEqualTo(200);
        }
        assertThat(redis.command("KEYS", "*status*")).doesNotContain("status");
        assertThat(exists(bucket("shop-b", "status"))).isFalse();
        assertThat(exists(bucket("anon:127.0.0.1/32", "status"))).isFalse();
        assertThat(upstream.last().header("X-Api-Key")).as("the key is still stripped").isEmpty();
    }

    @Test
    void optionalRoutesChargeKeyedAndUnkeyedCallersToTheirOwnBuckets() {
        HttpResponse<String> keyed = direct.sendWithHeaders("GET", "/catalog/a", "X-Api-Key", "shop-b-key", "X-Tenant-Id", "forged");
        assertThat(keyed.statusCode()).isEqualTo(200);
        assertThat(keyed.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
        assertThat(upstream.last().header("X-Tenant-Id")).containsExactly("shop-b");
        assertThat(tokens("rl:{shop-b}:catalog")).isEqualTo("2000000");

        HttpResponse<String> unkeyed = direct.sendWithHeaders("GET", "/catalog/a", "X-Tenant-Id", "forged");
        assertThat(unkeyed.statusCode()).isEqualTo(200);
        assertThat(unkeyed.headers().firstValue("X-RateLimit-Remaining")).as("its own bucket's state").hasValue("1");
        assertThat(unkeyed.headers().firstValue("RateLimit-Policy")).as("the anonymous plan's 2, not the default 3")
                .hasValue("\"catalog\";q=2;w=2000");
        assertThat(upstream.last().header("X-Tenant-Id")).as("no tenant for an anonymous caller").isEmpty();
        assertThat(tokens(bucket("anon:127.0.0.1/32", "catalog"))).isEqualTo("1000000");
        assertThat(tokens("rl:{shop-b}:catalog")).as("the keyed bucket untouched").isEqualTo("2000000");

        assertThat(direct.sendWithHeaders("GET", "/catalog/a", "X-Api-Key", "bogus").statusCode())
                .as("a key that is sent must be valid").isEqualTo(401);
        assertThat(tokens(bucket("anon:127.0.0.1/32", "catalog"))).isEqualTo("1000000");
    }

    @Test
    void anonymousRoutesIgnoreKeys() {
        HttpResponse<String> response = proxied.sendWithHeaders("POST", "/sign-up", "X-Api-Key", "good-key",
                "X-Forwarded-For", "198.51.100.20");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(upstream.last().header("X-Tenant-Id")).isEmpty();
        assertThat(exists("rl:{shop-a}:sign-up")).isFalse();
        assertThat(exists(bucket("anon:198.51.100.20/32", "sign-up"))).isTrue();
        assertThat(proxied.sendWithHeaders("POST", "/sign-up", "X-Api-Key", "a", "X-Api-Key", "b",
                "X-Forwarded-For", "198.51.100.20").statusCode()).as("not even a repeated key").isEqualTo(200);
    }

    private static double refusedForFailures(RunningGateway gateway) {
        return gateway.context().getBean(MeterRegistry.class)
                .get("tollgate.auth.failures.refused").functionCounter().count();
    }
}
