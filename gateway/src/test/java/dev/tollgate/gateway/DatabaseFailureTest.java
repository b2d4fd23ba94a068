package dev.tollgate.gateway;

import static dev.tollgate.gateway.DatabaseGateways.ADMIN_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.spring.directory.ApiKeys;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PostgreSQL lost while running, and missing at start: the gateway keeps serving and recovers. */
class DatabaseFailureTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private static String status(RunningGateway gateway, String component) {
        return JsonPath.read(gateway.management("/actuator/health").body(), "$.components." + component + ".status");
    }

    @Test
    void postgresLost_theLastRulesStayInForce_andChangesFlowAgainWhenItIsBack() {
        PostgresServer postgres = track(PostgresServer.start());
        RedisServer redis = track(RedisServer.start());
        TestUpstream upstream = track(new TestUpstream());
        RunningGateway gateway = track(RunningGateway.start(
                DatabaseGateways.properties(postgres, redis.port(), upstream.uri())));
        HttpResponse<String> created = gateway.admin("POST", "/admin/tenants/steady/keys", null, ADMIN_TOKEN);
        String key = JsonPath.read(created.body(), "$.key");
        gateway.admin("PUT", "/admin/rules/steady/create-order", "{\"capacity\":2,\"refillPerSecond\":0.001}", ADMIN_TOKEN);
        await().atMost(Duration.ofSeconds(5)).until(() ->
                gateway.context().getBean(Directory.class).ruleFor("steady", "create-order").capacity() == 2);

        postgres.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> "DEGRADED".equals(status(gateway, "directory")));

        assertThat(gateway.send("POST", "/orders", key).statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", key).statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", key).statusCode()).isEqualTo(429);
        assertThat(gateway.send("POST", "/orders", "tg_unknown").statusCode()).isEqualTo(401);
        HttpResponse<String> refused = gateway.admin("PUT", "/admin/rules/steady/create-order",
                "{\"capacity\":5,\"refillPerSecond\":1}", ADMIN_TOKEN);
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(gateway.management("/actuator/health").statusCode()).isEqualTo(200);

        postgres.restart();
        await().atMost(Duration.ofSeconds(15)).until(() -> "UP".equals(status(gateway, "directory")));
        // A change made directly in the database after the outage still reaches the gateway.
        assertThat(gateway.admin("PUT", "/admin/rules/steady/catalog", "{\"capacity\":9,\"refillPerSecond\":1}",
                ADMIN_TOKEN).statusCode()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(5)).until(() ->
                gateway.context().getBean(Directory.class).ruleFor("steady", "catalog").capacity() == 9);
    }

    @Test
    void postgresDownAtStart_theGatewayStartsAndServesWithTheDefaultRule_thenLoadsWhenItAppears() {
        int port = FreePort.find();
        RedisServer redis = track(RedisServer.start());
        TestUpstream upstream = track(new TestUpstream());
        RunningGateway gateway = track(RunningGateway.start(DatabaseGateways.properties(port, redis.port(), upstream.uri())));

        // No key can be checked: every request shares one bucket per route under the default rule (3).
        HttpResponse<String> first = gateway.send("POST", "/orders", "anything");
        assertThat(first.statusCode()).isEqualTo(200);
        // The shared bucket's counters would tell one client about the others' traffic: not shown.
        assertThat(first.headers().map().keySet()).noneMatch(h -> h.toLowerCase().contains("ratelimit"));
        // Nobody is verified: the backend gets no tenant, and still never the key.
        assertThat(upstream.last().header("X-Tenant-Id")).isEmpty();
        assertThat(upstream.last().header("X-Api-Key")).isEmpty();
        assertThat(gateway.send("POST", "/orders", "something-else").statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", "a-third").statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", "a-fourth").statusCode()).isEqualTo(429);
        assertThat(gateway.send("POST", "/orders", null).statusCode()).isEqualTo(401);
        String health = gateway.management("/actuator/health").body();
        assertThat(JsonPath.<String>read(health, "$.components.directory.status")).isEqualTo("DEGRADED");
        assertThat(JsonPath.<Boolean>read(health, "$.components.directory.details.loaded")).isFalse();
        assertThat(JsonPath.<String>read(health, "$.components.directory.details.error")).isNotBlank();
        assertThat(redis.command("EXISTS", "rl:{?unverified}:create-order")).isEqualTo(":1");
        // Nothing was ever read: no age to report (it said ~9.2e12 s before).
        assertThat(gateway.management("/actuator/prometheus").body())
                .contains("tollgate_directory_snapshot_age_seconds NaN");

        track(PostgresServer.startOnPort(port));
        await().atMost(Duration.ofSeconds(15)).until(() -> "UP".equals(status(gateway, "directory")));
        assertThat(gateway.send("POST", "/orders", "anything").statusCode()).isEqualTo(401);
        HttpResponse<String> created = gateway.admin("POST", "/admin/tenants/late/keys", null, ADMIN_TOKEN);
        String key = JsonPath.read(created.body(), "$.key");
        await().atMost(Duration.ofSeconds(5)).until(() -> gateway.send("POST", "/orders", key).statusCode() == 200);
    }

    @Test
    void postgresDownAtStart_anInstanceStartsFromTheSnapshotSavedByItsLastRun() throws Exception {
        PostgresServer postgres = track(PostgresServer.start());
        RedisServer redis = track(RedisServer.start());
        Path localState = RunningGateway.temporaryFolder("tollgate-saved-snapshot");
        track(() -> RunningGateway.deleteFolder(localState));
        // No request goes through the first run; a backend is started after it (closing a gateway
        // disposes the shared Reactor Netty resources a backend in this JVM would run on).
        Map<String, Object> firstRun = DatabaseGateways.properties(postgres, redis.port(), "http://127.0.0.1:9");
        firstRun.put(RunningGateway.LOCAL_STATE, localState.toString());
        String key;
        try (RunningGateway before = RunningGateway.start(firstRun)) {
            before.admin("PUT", "/admin/rules/saved/create-order", "{\"capacity\":2,\"refillPerSecond\":0.001}",
                    ADMIN_TOKEN);
            key = JsonPath.read(before.admin("POST", "/admin/tenants/saved/keys", null, ADMIN_TOKEN).body(), "$.key");
            // Saved after the change that brought the key, which came after the rule's.
            Path file = localState.resolve("directory.snapshot");
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(file)
                    && new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(ApiKeys.hash(key)));
        }
        postgres.stop();

        TestUpstream upstream = track(new TestUpstream());
        Map<String, Object> properties = DatabaseGateways.properties(postgres, redis.port(), upstream.uri());
        properties.put(RunningGateway.LOCAL_STATE, localState.toString());
        RunningGateway gateway = track(RunningGateway.start(properties));
        // The tenant's own key and rule (capacity 2), not one shared default-rule bucket (capacity 3).
        assertThat(gateway.send("POST", "/orders", key).statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", key).statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", key).statusCode()).isEqualTo(429);
        assertThat(gateway.send("POST", "/orders", "tg_unknown").statusCode()).isEqualTo(401);
        String health = gateway.management("/actuator/health").body();
        assertThat(JsonPath.<String>read(health, "$.components.directory.status")).isEqualTo("DEGRADED");
        assertThat(JsonPath.<Boolean>read(health, "$.components.directory.details.loaded")).isTrue();
        assertThat(JsonPath.<String>read(health, "$.components.directory.details.source")).isEqualTo("saved-file");
        assertThat(JsonPath.<Integer>read(health, "$.components.directory.details.snapshotAgeMillis")).isNotNegative();
        assertThat(JsonPath.<String>read(health, "$.components.directory.details.snapshotFile"))
                .isEqualTo(localState.resolve("directory.snapshot").toString());
        assertThat(gateway.management("/actuator/health/readiness").statusCode()).isEqualTo(200);

        postgres.restart();
        await().atMost(Duration.ofSeconds(15)).until(() -> "UP".equals(status(gateway, "directory")));
        assertThat(JsonPath.<String>read(gateway.management("/actuator/health").body(),
                "$.components.directory.details.source")).isEqualTo("database");
    }

    @Test
    void withTheRejectPolicyUnverifiedRequestsGet503() {
        int port = FreePort.find();
        RedisServer redis = track(RedisServer.start());
        TestUpstream upstream = track(new TestUpstream());
        var properties = DatabaseGateways.properties(port, redis.port(), upstream.uri());
        properties.put("tollgate.directory.unverified-keys", "reject");
        RunningGateway gateway = track(RunningGateway.start(properties));
        HttpResponse<String> r = gateway.send("POST", "/orders", "anything");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("5");
        assertThat(r.body()).contains("urn:tollgate:problem:directory-unavailable");
        assertThat(upstream.requests()).isZero();
    }
}
