package dev.tollgate.gateway;

import static dev.tollgate.gateway.DatabaseGateways.ADMIN_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The admin API against hostile input: every bad request is a 4xx problem naming what is wrong,
 * stores nothing, echoes nothing unbounded, and costs no more memory than its own size.
 */
class AdminApiHardeningTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static PostgresDatabase postgres;
    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        postgres = PostgresServer.freshDatabase();
        redis = RedisServer.start();
        upstream = new TestUpstream();
        gateway = RunningGateway.start(DatabaseGateways.properties(postgres, redis.port(), upstream.uri()));
    }

    @AfterAll
    static void stop() {
        Resources.closeAll(gateway, upstream, redis, postgres);
    }

    /** An admin request with exactly the given content type (null: none) and authorization. */
    private static HttpResponse<String> request(String method, String path, String contentType, String body,
                                                String authorization) {
        HttpRequest.Builder r = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + gateway.managementPort() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            r.header("Content-Type", contentType);
        }
        if (authorization != null) {
            r.header("Authorization", authorization);
        }
        try {
            return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpResponse<String> putRule(String path, String json) {
        return request("PUT", path, "application/json", json, "Bearer " + ADMIN_TOKEN);
    }

    private static int rows(String table) throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static void assertProblem(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).as("%s", r.body().length() > 500 ? r.body().substring(0, 500) : r.body())
                .isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("\tat ");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1e-10000000", "1e-500000000", "1E+500000000", "-1e-500000000", "0.0001e-99999999"})
    void anExtremeExponentIs400NamingTheFieldWithAShortAnswer(String refill) throws Exception {
        int before = rows("rate_limit_rule");
        HttpResponse<String> r = putRule("/admin/rules/t1/r1", "{\"capacity\":5,\"refillPerSecond\":" + refill + "}");
        assertProblem(r, 400);
        assertThat(JsonPath.<String>read(r.body(), "$.field")).isEqualTo("refillPerSecond");
        assertThat(r.body().length()).isLessThan(400);
        assertThat(rows("rate_limit_rule")).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "{\"capacity\":1.5,\"refillPerSecond\":1}                          | capacity",
            "{\"capacity\":1e3,\"refillPerSecond\":1}                          | capacity",
            "{\"capacity\":\"10\",\"refillPerSecond\":1}                       | capacity",
            "{\"capacity\":true,\"refillPerSecond\":1}                         | capacity",
            "{\"capacity\":[5],\"refillPerSecond\":1}                          | capacity",
            "{\"capacity\":99999999999999999999999,\"refillPerSecond\":1}      | capacity",
            "{\"capacity\":5,\"capacity\":6,\"refillPerSecond\":1}             | capacity",
            "{\"capacity\":5,\"refillPerSecond\":\"1\"}                        | refillPerSecond",
            "{\"capacity\":5,\"refillPerSecond\":false}                        | refillPerSecond",
            "{\"capacity\":5,\"refillPerSecond\":1,\"cost\":1.0}               | cost",
            "{\"capacity\":5,\"refillPerSecond\":1,\"shadow\":1}               | shadow",
            "{\"capacity\":5,\"refillPerSecond\":1,\"shadow\":\"true\"}        | shadow",
            "{\"capacity\":5,\"refillPerSecond\":1,\"shards\":2.0}             | shards",
            "{\"capacity\":5,\"refillPerSecond\":1,\"cots\":1}                 | cots",
            "{\"capacity\":5,\"refillPerSecond\":1} {}                         | body",
            "[{\"capacity\":5,\"refillPerSecond\":1}]                          | body",
            "null                                                              | body",
    })
    void ruleBodiesAreBoundStrictly(String json, String field) throws Exception {
        int before = rows("rate_limit_rule");
        HttpResponse<String> r = putRule("/admin/rules/strict/create-order", json);
        assertProblem(r, 400);
        assertThat(JsonPath.<String>read(r.body(), "$.field")).isEqualTo(field);
        assertThat(rows("rate_limit_rule")).isEqualTo(before);
    }

    @Test
    void anUnknownFieldsNameIsEchoedOnlyInPart() {
        String name = "x".repeat(10_000);
        HttpResponse<String> r = putRule("/admin/rules/strict/create-order",
                "{\"capacity\":5,\"refillPerSecond\":1,\"" + name + "\":1}");
        assertProblem(r, 400);
        assertThat(r.body().length()).isLessThan(500);
    }

    @Test
    void wellFormedBodiesStillPass() {
        assertThat(putRule("/admin/rules/strict/ok-1", "{\"capacity\":5,\"refillPerSecond\":2.50}").statusCode())
                .isEqualTo(201);
        assertThat(putRule("/admin/rules/strict/ok-2", "{\"capacity\":5,\"refillPerSecond\":1E+2,\"shadow\":false}")
                .statusCode()).isEqualTo(201);
        HttpResponse<String> withCharset = request("PUT", "/admin/rules/strict/ok-3", "application/json; charset=UTF-8",
                "{\"capacity\":5,\"refillPerSecond\":1,\"cost\":2,\"shards\":2}", "Bearer " + ADMIN_TOKEN);
        assertThat(withCharset.statusCode()).as(withCharset.body()).isEqualTo(201);
        // A key needs no body at all.
        HttpResponse<String> key = request("POST", "/admin/tenants/strict/keys", null, null, "Bearer " + ADMIN_TOKEN);
        assertThat(key.statusCode()).as(key.body()).isEqualTo(201);
    }

    @Test
    void aKeyLabelIsAStringWithoutControlCharactersAndTheDatabasesOwnWordsNeverReachTheClient() throws Exception {
        int before = rows("api_key");
        HttpResponse<String> number = request("POST", "/admin/tenants/labels/keys", "application/json",
                "{\"label\":5}", "Bearer " + ADMIN_TOKEN);
        assertProblem(number, 400);
        assertThat(JsonPath.<String>read(number.body(), "$.field")).isEqualTo("label");
        HttpResponse<String> nul = request("POST", "/admin/tenants/labels/keys", "application/json",
                "{\"label\":\"a\\u0000b\"}", "Bearer " + ADMIN_TOKEN);
        assertProblem(nul, 400);
        assertThat(JsonPath.<String>read(nul.body(), "$.field")).isEqualTo("label");
        assertThat(nul.body()).doesNotContainIgnoringCase("utf8").doesNotContain("0x00").doesNotContain("ERROR");
        assertThat(rows("api_key")).isEqualTo(before);
    }

    @Test
    void aBodyOverTheLimitIs413() throws Exception {
        int before = rows("rate_limit_rule");
        String padded = "{\"capacity\":5,\"refillPerSecond\":1" + " ".repeat(64 * 1024) + "}";
        assertProblem(putRule("/admin/rules/big/r1", padded), 413);
        String huge = "{\"capacity\":5,\"refillPerSecond\":1" + " ".repeat(2 * 1024 * 1024) + "}";
        assertProblem(putRule("/admin/rules/big/r1", huge), 413);
        // Chunked, so no length is declared: the body is read up to the limit and no further.
        byte[] chunked = ("{\"capacity\":5,\"refillPerSecond\":1" + " ".repeat(1024 * 1024) + "}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        HttpRequest streamed = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + gateway.managementPort() + "/admin/rules/big/r1"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(chunked)))
                .build();
        assertProblem(HTTP.send(streamed, HttpResponse.BodyHandlers.ofString()), 413);
        assertThat(rows("rate_limit_rule")).isEqualTo(before);
    }

    @Test
    void aBodyWithoutOrWithTheWrongContentTypeIs415() throws Exception {
        int before = rows("rate_limit_rule");
        String json = "{\"capacity\":5,\"refillPerSecond\":1}";
        assertProblem(request("PUT", "/admin/rules/typed/r1", null, json, "Bearer " + ADMIN_TOKEN), 415);
        assertProblem(request("PUT", "/admin/rules/typed/r1", "text/plain", json, "Bearer " + ADMIN_TOKEN), 415);
        assertProblem(request("POST", "/admin/tenants/typed/keys", "application/x-www-form-urlencoded", "label=x",
                "Bearer " + ADMIN_TOKEN), 415);
        assertThat(rows("rate_limit_rule")).isEqualTo(before);
    }

    @Test
    void aPageBeyondWhatCanBeCountedIs400() {
        HttpResponse<String> r = request("GET", "/admin/rules?page=3000000&size=1000", null, null, "Bearer " + ADMIN_TOKEN);
        assertProblem(r, 400);
        assertThat(JsonPath.<String>read(r.body(), "$.field")).isEqualTo("page");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "/admin/rules?tenant=..",
            "/admin/rules?tenant=.",
            "/admin/rules/./r1",
            "/admin/rules/%2E%2E/r1",
            "/admin/rules/t1/..",
            "/admin/tenants/%2e/keys",
    })
    void dotIdsAreRefused(String path) throws Exception {
        int rules = rows("rate_limit_rule");
        int keys = rows("api_key");
        String method = path.contains("keys") ? "POST" : path.contains("?") ? "GET" : "PUT";
        HttpResponse<String> r = request(method, path, "application/json",
                method.equals("GET") ? null : "{\"capacity\":5,\"refillPerSecond\":1}", "Bearer " + ADMIN_TOKEN);
        assertThat(r.statusCode()).as(r.body()).isBetween(400, 404);
        // The admin API's own answer, never Spring's default error JSON.
        assertProblem(r, r.statusCode());
        assertThat(r.body()).contains("\"type\":\"urn:tollgate:problem:");
        assertThat(rows("rate_limit_rule")).isEqualTo(rules);
        assertThat(rows("api_key")).isEqualTo(keys);
    }

    @Test
    void adminPathsAreNormalisedLikeGatewayPaths() {
        HttpResponse<String> encoded = request("PUT", "/admin/rules/%2E%2E/r1", "application/json",
                "{\"capacity\":5,\"refillPerSecond\":1}", "Bearer " + ADMIN_TOKEN);
        assertProblem(encoded, 400);
        assertThat(encoded.body()).contains("urn:tollgate:problem:invalid-path");
        // ... and a dot-segment is resolved before the admin API's routes are matched.
        HttpResponse<String> dotted = request("GET", "/admin/rules/x/../../rules", null, null, "Bearer " + ADMIN_TOKEN);
        assertThat(dotted.statusCode()).as(dotted.body()).isEqualTo(200);
        assertThat(dotted.body()).startsWith("{\"rules\":");
    }

    @Test
    void theBearerSchemeIsCaseInsensitive() {
        for (String scheme : List.of("bearer ", "BEARER ", "BeArEr ", "Bearer   ")) {
            assertThat(request("GET", "/admin/rules", null, null, scheme + ADMIN_TOKEN).statusCode())
                    .as(scheme).isEqualTo(200);
        }
        for (String wrong : List.of("Bearer" + ADMIN_TOKEN, "Basic " + ADMIN_TOKEN, "Bearer " + ADMIN_TOKEN + "x",
                "Bearer " + ADMIN_TOKEN.toUpperCase(), "Bearer")) {
            HttpResponse<String> r = request("GET", "/admin/rules", null, null, wrong);
            assertThat(r.statusCode()).as(wrong).isEqualTo(401);
        }
    }
}
