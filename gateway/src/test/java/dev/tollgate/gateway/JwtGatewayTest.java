package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.spring.identity.TokenIssuer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tenants from bearer tokens end to end: the gateway verifies RS256/ES256 tokens against a JWK set
 * served on 127.0.0.1 and the issuer, charges the tenant its claim names, tells the backend, and answers
 * every refused token 401 problem+json. With the static source, the API key is the tenant's name.
 */
class JwtGatewayTest {

    private static RedisServer redis;
    private static TestUpstream upstream;
    private static TokenIssuer issuer;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
        issuer = new TokenIssuer();
        Map<String, Object> properties = new HashMap<>();
        properties.put("spring.data.redis.host", redis.host());
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.put("tollgate.source", "static");
        properties.put("tollgate.redis.timeout", "5s");
        properties.putAll(RunningGateway.route(0, "orders", "POST", "/orders", upstream.uri()));
        properties.putAll(RunningGateway.route(1, "catalog", "GET", "/catalog/**", upstream.uri()));
        properties.put("tollgate.routes.catalog.identity", "optional");
        properties.put("tollgate.default-rule.capacity", "3");
        properties.put("tollgate.default-rule.refill-per-second", "0.001");
        properties.put("tollgate.jwt.issuer-uri", TokenIssuer.ISSUER);
        properties.put("tollgate.jwt.jwk-set-uri", issuer.jwkSetUri());
        properties.put("tollgate.jwt.tenant-claim", "org");
        gateway = RunningGateway.start(properties);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable closeable : new AutoCloseable[] {gateway, issuer, upstream, redis}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    // closing the others matters more
                }
            }
        }
    }

    private static String bearer(String token) {
        return "Bearer " + token;
    }

    @Test
    void aVerifiedTokenIsItsClaimsTenant() {
        HttpResponse<String> rsa = gateway.sendWithHeaders("POST", "/orders", "Authorization",
                bearer(issuer.rs256(TokenIssuer.claims(Map.of("org", "jwt-rsa")).build())));
        assertThat(rsa.statusCode()).isEqualTo(200);
        assertThat(rsa.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
        assertThat(upstream.last().header("X-Tenant-Id")).containsExactly("jwt-rsa");
        assertThat(redis.command("HGET", "rl:{jwt-rsa}:orders", "tokens")).isEqualTo("2000000");

        HttpResponse<String> ec = gateway.sendWithHeaders("POST", "/orders", "Authorization",
                bearer(issuer.es256(TokenIssuer.claims(Map.of("org", "jwt-ec")).build())));
        assertThat(ec.statusCode()).isEqualTo(200);
        assertThat(upstream.last().header("X-Tenant-Id")).containsExactly("jwt-ec");
    }

    @Test
    void theApiKeyWinsOverATokenWhichIsLeftForTheBackend() {
        String token = bearer(issuer.rs256(TokenIssuer.claims(Map.of("org", "jwt-loser")).build()));
        HttpResponse<String> both = gateway.sendWithHeaders("POST", "/orders", "X-Api-Key", "key-winner", "Authorization", token);
        assertThat(both.statusCode()).isEqualTo(200);
        assertThat(upstream.last().header("X-Tenant-Id")).containsExactly("key-winner");
        assertThat(upstream.last().header("Authorization")).containsExactly(token);
        assertThat(redis.command("EXISTS", "rl:{jwt-loser}:orders")).isEqualTo(":0");
        // even a token that would be refused: the key decides
        assertThat(gateway.sendWithHeaders("POST", "/orders", "X-Api-Key", "key-winner", "Authorization", "Bearer garbage").statusCode())
                .isEqualTo(200);
    }

    @Test
    void everyRefusedTokenIs401ProblemJson() {
        Map<String, String> refused = new HashMap<>();
        refused.put("expired", issuer.rs256(TokenIssuer.claims(Map.of("org", "t"))
                .issueTime(Date.from(Instant.now().minusSeconds(3_600)))
                .expirationTime(Date.from(Instant.now().minusSeconds(600))).build()));
        refused.put("badly signed", issuer.forged(TokenIssuer.claims(Map.of("org", "t")).build()));
        refused.put("wrong issuer", issuer.rs256(TokenIssuer.claims(Map.of("org", "t")).issuer("https://other.test").build()));
        refused.put("claim-less", issuer.es256(TokenIssuer.claims(Map.of("tenant", "t")).build()));
        refused.put("HS256", TokenIssuer.hs256(TokenIssuer.claims(Map.of("org", "t")).build()));
        refused.put("garbage", "a.b.c");
        int before = upstream.requests();
        refused.forEach((what, token) -> {
            HttpResponse<String> response = gateway.sendWithHeaders("POST", "/orders", "Authorization", bearer(token));
            assertThat(response.statusCode()).as(what).isEqualTo(401);
            assertThat(response.headers().firstValue("Content-Type")).as(what).hasValue("application/problem+json");
            assertThat(response.headers().firstValue("WWW-Authenticate")).as(what).hasValue("Bearer error=\"invalid_token\"");
            assertThat(response.body()).as(what).contains("\"type\":\"urn:tollgate:problem:invalid-token\"");
        });
        assertThat(upstream.requests()).isEqualTo(before);
        assertThat(redis.command("EXISTS", "rl:{t}:orders")).isEqualTo(":0");
    }

    @Test
    void onAnOptionalRouteATokenIsATenantAndNoCredentialsAnAnonymousCaller() {
        assertThat(gateway.sendWithHeaders("GET", "/catalog/1", "Authorization",
                bearer(issuer.rs256(TokenIssuer.claims(Map.of("org", "jwt-catalog")).build()))).statusCode()).isEqualTo(200);
        assertThat(redis.command("HGET", "rl:{jwt-catalog}:catalog", "tokens")).isEqualTo("2000000");
        assertThat(gateway.sendWithHeaders("GET", "/catalog/1", "Authorization", "Bearer garbage").statusCode())
                .as("a token that is sent must be valid").isEqualTo(401);
        assertThat(gateway.sendWithHeaders("GET", "/catalog/1").statusCode()).isEqualTo(200);
        assertThat(redis.command("EXISTS", "rl:{anon%3A127.0.0.1/32}:catalog")).isEqualTo(":1");
    }
}
