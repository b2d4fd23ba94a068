package dev.tollgate.gateway;

import dev.tollgate.testkit.PostgresEndpoint;
import java.util.HashMap;
import java.util.Map;

/** Properties for a gateway reading its rules and keys from a test PostgreSQL. */
final class DatabaseGateways {

    static final String ADMIN_TOKEN = "test-admin-token";

    private DatabaseGateways() {
    }

    /** A gateway on the {@code postgres} database of a server on {@code postgresPort}, running or not yet. */
    static Map<String, Object> properties(int postgresPort, int redisPort, String upstreamUri) {
        return properties("jdbc:postgresql://127.0.0.1:" + postgresPort + "/postgres", redisPort, upstreamUri);
    }

    static Map<String, Object> properties(PostgresEndpoint postgres, int redisPort, String upstreamUri) {
        return properties(postgres.jdbcUrl(), redisPort, upstreamUri);
    }

    private static Map<String, Object> properties(String jdbcUrl, int redisPort, String upstreamUri) {
        Map<String, Object> p = new HashMap<>();
        p.put("tollgate.source", "database");
        p.put("spring.datasource.url", jdbcUrl);
        p.put("spring.datasource.username", "postgres");
        p.put("spring.datasource.password", "");
        p.put("spring.data.redis.port", Integer.toString(redisPort));
        p.put("tollgate.redis.timeout", "5s"); // decisions from Redis only; failures are tested elsewhere
        p.put("tollgate.admin.token", ADMIN_TOKEN);
        // Long enough that only change notifications can explain a change seen within a second.
        p.put("tollgate.directory.refresh-interval", "60s");
        p.put("tollgate.directory.retry-delay", "200ms");
        p.put("tollgate.default-rule.capacity", "3");
        p.put("tollgate.default-rule.refill-per-second", "0.001");
        p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstreamUri));
        p.putAll(RunningGateway.route(1, "catalog", "GET", "/catalog/**", upstreamUri));
        return p;
    }
}
