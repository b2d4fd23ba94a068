package dev.tollgate.gateway;

import static dev.tollgate.gateway.DatabaseGateways.ADMIN_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.PostgresDatabase;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The N the local fallback divides limits by, when Redis (where instances count each other first) is
 * down: learnt from heartbeats in PostgreSQL, or, with both down, the count the last run saved.
 */
class FallbackInstanceCountTest {

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

    private static LiveInstances instances(RunningGateway gateway) {
        return gateway.context().getBean(LiveInstances.class);
    }

    private static Map<String, Object> fastHeartbeats(Map<String, Object> properties) {
        properties.put("tollgate.fallback.heartbeat-interval", "200ms");
        properties.put("tollgate.fallback.heartbeat-ttl", "1s");
        return properties;
    }

    /** Sends {@code requests} requests with {@code key}; each must be answered 200 or 429. Returns the 200s. */
    private static int admitted(RunningGateway gateway, String key, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            HttpResponse<String> r = gateway.send("POST", "/orders", key);
            assertThat(r.statusCode()).isIn(200, 429);
            admitted += r.statusCode() == 200 ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void aFleetStartedWhileRedisIsDownAdmitsAboutTheLimitInAll_notNTimesIt() {
        PostgresDatabase postgres = track(PostgresServer.freshDatabase());
        int redisPort = FreePort.find(); // nothing listens there
        TestUpstream upstream = track(new TestUpstream());
        List<RunningGateway> fleet = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            fleet.add(track(RunningGateway.start(fastHeartbeats(
                    DatabaseGateways.properties(postgres, redisPort, upstream.uri())))));
        }
        // Another instance on the same PostgreSQL but another Redis (another region, say) is not of this fleet.
        RunningGateway elsewhere = track(RunningGateway.start(fastHeartbeats(
                DatabaseGateways.properties(postgres, FreePort.find(), upstream.uri()))));
        RunningGateway first = fleet.get(0);
        assertThat(first.admin("PUT", "/admin/rules/fleet/create-order", "{\"capacity\":30,\"refillPerSecond\":0.001}",
                ADMIN_TOKEN).statusCode()).isEqualTo(201);
        String key = JsonPath.read(first.admin("POST", "/admin/tenants/fleet/keys", null, ADMIN_TOKEN).body(), "$.key");
        for (RunningGateway gateway : fleet) {
            Directory directory = gateway.context().getBean(Directory.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> TenantLookup.verified("fleet").equals(directory.lookup(key))
                    && directory.ruleFor("fleet", "create-order").capacity() == 30);
            // Redis has never answered: N can only come from the heartbeats in PostgreSQL.
            await().atMost(Duration.ofSeconds(10)).until(() -> instances(gateway).count() == 3);
            assertThat(instances(gateway).current().source()).isEqualTo("postgresql-heartbeat");
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> instances(elsewhere).isLearnt());
        assertThat(instances(elsewhere).current()).isEqualTo(new LiveInstances.Count(1, "postgresql-heartbeat"));

        int total = 0;
        for (RunningGateway gateway : fleet) {
            total += admitted(gateway, key, 30);
        }
        // Burst 30, refill too slow to matter, three instances: 10 each, 30 in all (it was 90).
        assertThat(total).isEqualTo(30);
        String health = first.management("/actuator/health").body();
        assertThat(JsonPath.<Integer>read(health, "$.components.rateLimiter.details.liveInstances")).isEqualTo(3);
        assertThat(JsonPath.<String>read(health, "$.components.rateLimiter.details.liveInstancesSource"))
                .isEqualTo("postgresql-heartbeat");
    }

    @Test
    void withPostgresDownAndRedisUpTheCountComesFromRedis() {
        PostgresServer postgres = track(PostgresServer.start());
        RedisServer redis = track(RedisServer.start());
        TestUpstream upstream = track(new TestUpstream());
        RunningGateway a = track(RunningGateway.start(fastHeartbeats(
                DatabaseGateways.properties(postgres, redis.port(), upstream.uri()))));
        RunningGateway b = track(RunningGateway.start(fastHeartbeats(
                DatabaseGateways.properties(postgres, redis.port(), upstream.uri()))));
        await().atMost(Duration.ofSeconds(10)).until(() -> instances(a).count() == 2 && instances(b).count() == 2);

        postgres.stop();
        // Several 200 ms beats while PostgreSQL is down: its beats fail, Redis's answer.
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(3))
                .until(() -> instances(a).current().equals(new LiveInstances.Count(2, "redis-heartbeat")));
    }

    @Test
    void withRedisDownAtStartAndNoDatabase_theCountSavedByTheLastRunApplies() throws Exception {
        RedisServer redis = track(RedisServer.start());
        Path localState = RunningGateway.temporaryFolder("tollgate-instance-count");
        track(() -> RunningGateway.deleteFolder(localState));
        Map<String, Object> properties = fastHeartbeats(staticGateway(redis.port(), "http://127.0.0.1:9"));
        Map<String, Object> withState = new HashMap<>(properties);
        withState.put(RunningGateway.LOCAL_STATE, localState.toString());
        try (RunningGateway a = RunningGateway.start(withState); RunningGateway b = RunningGateway.start(properties)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> instances(a).count() == 2 && instances(b).count() == 2);
            Path saved = localState.resolve("instance-count");
            await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(saved)
                    && new String(Files.readAllBytes(saved), StandardCharsets.ISO_8859_1)
                            .startsWith("tollgate-instance-count 2\n2\n"));
        }
        redis.kill();

        // A backend started after the first run (closing a gateway disposes the shared Reactor Netty resources).
        TestUpstream upstream = track(new TestUpstream());
        Map<String, Object> restart = fastHeartbeats(staticGateway(redis.port(), upstream.uri()));
        restart.put(RunningGateway.LOCAL_STATE, localState.toString());
        RunningGateway gateway = track(RunningGateway.start(restart));
        assertThat(instances(gateway).current()).isEqualTo(new LiveInstances.Count(2, "saved"));
        // Burst 40 and no refill to speak of, two instances as last seen: this one admits 20 (it was 40).
        assertThat(admitted(gateway, "share", 60)).isEqualTo(20);
    }

    private static Map<String, Object> staticGateway(int redisPort, String upstreamUri) {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.data.redis.port", Integer.toString(redisPort));
        p.put("tollgate.source", "static");
        p.put("tollgate.redis.timeout", "100ms");
        p.put("tollgate.redis.connect-retry-delay", "200ms");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstreamUri));
        p.putAll(RunningGateway.rule(0, "share", "create-order", 40, 0.001));
        return p;
    }
}
