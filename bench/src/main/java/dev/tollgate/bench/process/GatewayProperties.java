package dev.tollgate.bench.process;

import static dev.tollgate.bench.process.BenchRoutes.ACCURACY_CAPACITY;
import static dev.tollgate.bench.process.BenchRoutes.ACCURACY_RATE;
import static dev.tollgate.bench.process.BenchRoutes.ACCURACY_ROUTE;
import static dev.tollgate.bench.process.BenchRoutes.ACCURACY_TENANT;
import static dev.tollgate.bench.process.BenchRoutes.BENCH_ROUTE;
import static dev.tollgate.bench.process.BenchRoutes.BURST_CAPACITY;
import static dev.tollgate.bench.process.BenchRoutes.BURST_RATE;
import static dev.tollgate.bench.process.BenchRoutes.BURST_ROUTE;
import static dev.tollgate.bench.process.BenchRoutes.BURST_TENANT;
import static dev.tollgate.bench.process.BenchRoutes.UNREACHED_CAPACITY;
import static dev.tollgate.bench.process.BenchRoutes.UNREACHED_QUOTA;
import static dev.tollgate.bench.process.BenchRoutes.UNREACHED_RATE;

import dev.tollgate.bench.builtin.ApiKeyResolverAutoConfiguration;
import dev.tollgate.bench.plugin.KnownKeysAutoConfiguration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The command-line properties of one gateway of the benchmark. Everything but the limiter is the
 * same for every variant: port, Redis, routes, logging.
 */
final class GatewayProperties {

    private static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

    private GatewayProperties() {
    }

    /** The trusted proxy of {@link GatewayVariant#TOLLGATE_ANONYMOUS}: the load generator itself. */
    static final String GENERATOR_AS_PROXY = "127.0.0.1/32";

    /**
     * @param jwkSetUri    the JWK set the JWT variant verifies tokens with (unused by the others)
     * @param knownCallers how many {@code tenant-<i>} keys the key-directory variants have issued
     */
    static Map<String, String> of(GatewayVariant variant, int port, String upstreamUrl, int redisPort,
                                  String jwkSetUri, int knownCallers) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("server.port", Integer.toString(port));
        p.put("server.address", "127.0.0.1");
        p.put("spring.main.banner-mode", "off");
        p.put("logging.level.root", "WARN");
        p.put("spring.data.redis.host", "127.0.0.1");
        p.put("spring.data.redis.port", Integer.toString(redisPort));
        // Rules from these properties, no database: the benchmark measures the request path.
        p.put("tollgate.source", "static");
        // Several gateways run side by side: actuator on each one's own port (health is the
        // readiness probe), not on the default separate port 8081 they would all want.
        p.put("management.server.port", Integer.toString(port));
        route(p, 0, BENCH_ROUTE, upstreamUrl);
        route(p, 1, ACCURACY_ROUTE, upstreamUrl);
        route(p, 2, BURST_ROUTE, upstreamUrl);
        switch (variant) {
            case NO_LIMITER -> p.put("tollgate.enabled", "false");
            case TOLLGATE -> tollgateRules(p);
            case TOLLGATE_ANONYMOUS -> {
                tollgateRules(p);
                // Only where the identity comes from differs; no plan "anonymous", so anonymous
                // callers are on the default rule, as tenants are.
                p.put("tollgate.routes." + BENCH_ROUTE + ".identity", "anonymous");
                p.put("tollgate.client-address.trusted-proxies", GENERATOR_AS_PROXY);
            }
            case TOLLGATE_JWT -> {
                tollgateRules(p);
                p.put("tollgate.jwt.jwk-set-uri", jwkSetUri);
            }
            case TOLLGATE_KEYS, TOLLGATE_KEYS_NO_FAILURE_LIMIT -> {
                tollgateRules(p);
                p.put(KnownKeysAutoConfiguration.PREFIX, BenchRoutes.COLD_TENANT_PREFIX);
                p.put(KnownKeysAutoConfiguration.COUNT, Integer.toString(knownCallers));
                p.put(KnownKeysAutoConfiguration.NAMES, String.join(",", BenchRoutes.VICTIM_TENANT,
                        BenchRoutes.PROBE_TENANT, BenchRoutes.HOT_TENANT));
                if (variant == GatewayVariant.TOLLGATE_KEYS_NO_FAILURE_LIMIT) {
                    p.put("tollgate.auth-failures.enabled", "false");
                }
            }
            case TOLLGATE_THREE_LIMITS -> threeLimitPlan(p);
            case BUILT_IN -> {
                p.put("tollgate.enabled", "false");
                // The Tollgate application excludes Spring Cloud Gateway's Redis rate-limiter
                // auto-configuration; this baseline is the one place that needs it back.
                p.put("spring.autoconfigure.exclude", "");
                builtInLimiter(p, 0, UNREACHED_RATE, UNREACHED_CAPACITY);
                builtInLimiter(p, 1, ACCURACY_RATE, ACCURACY_CAPACITY);
                builtInLimiter(p, 2, BURST_RATE, BURST_CAPACITY);
            }
        }
        return p;
    }

    /** Tollgate's own settings are its production defaults; only rules are given. */
    private static void tollgateRules(Map<String, String> p) {
        p.put("tollgate.default-rule.capacity", Long.toString(UNREACHED_CAPACITY));
        p.put("tollgate.default-rule.refill-per-second", Long.toString(UNREACHED_RATE));
        p.put("tollgate.rules[0].tenant", ACCURACY_TENANT);
        p.put("tollgate.rules[0].route", ACCURACY_ROUTE);
        p.put("tollgate.rules[0].capacity", Long.toString(ACCURACY_CAPACITY));
        p.put("tollgate.rules[0].refill-per-second", Long.toString(ACCURACY_RATE));
        p.put("tollgate.rules[1].tenant", BURST_TENANT);
        p.put("tollgate.rules[1].route", BURST_ROUTE);
        p.put("tollgate.rules[1].capacity", Long.toString(BURST_CAPACITY));
        p.put("tollgate.rules[1].refill-per-second", Long.toString(BURST_RATE));
    }

    /**
     * The plan named {@code default}, so every tenant (none is on another plan) gets its three
     * limits on every route; no rule of its own, so no limit group comes from elsewhere. Capacities,
     * rates and the quota are far above what any run offers: a day's quota of 10^12 is not reached at
     * 10^5 req/s in a day.
     */
    private static void threeLimitPlan(Map<String, String> p) {
        String plan = "tollgate.plans." + BenchRoutes.THREE_LIMIT_PLAN;
        p.put("tollgate.default-plan", BenchRoutes.THREE_LIMIT_PLAN);
        p.put(plan + "[0].name", BenchRoutes.THREE_LIMIT_NAMES.get(0));
        p.put(plan + "[0].scope", "each-route");
        p.put(plan + "[0].capacity", Long.toString(UNREACHED_CAPACITY));
        p.put(plan + "[0].refill-per-second", Long.toString(UNREACHED_RATE));
        p.put(plan + "[1].name", BenchRoutes.THREE_LIMIT_NAMES.get(1));
        p.put(plan + "[1].scope", "tenant");
        p.put(plan + "[1].capacity", Long.toString(UNREACHED_CAPACITY));
        p.put(plan + "[1].refill-per-second", Long.toString(UNREACHED_RATE));
        p.put(plan + "[2].name", BenchRoutes.THREE_LIMIT_NAMES.get(2));
        p.put(plan + "[2].scope", "tenant");
        p.put(plan + "[2].quota", Long.toString(UNREACHED_QUOTA));
        p.put(plan + "[2].period", "day");
    }

    private static void route(Map<String, String> p, int index, String id, String uri) {
        String prefix = ROUTES + "[" + index + "].";
        p.put(prefix + "id", id);
        p.put(prefix + "uri", uri);
        p.put(prefix + "predicates[0]", "Path=/" + id + "/**");
    }

    /** Spring Cloud Gateway's documented RequestRateLimiter configuration, as properties. */
    private static void builtInLimiter(Map<String, String> p, int routeIndex, long rate, long burst) {
        String filter = ROUTES + "[" + routeIndex + "].filters[0].";
        p.put(filter + "name", "RequestRateLimiter");
        p.put(filter + "args[redis-rate-limiter.replenishRate]", Long.toString(rate));
        p.put(filter + "args[redis-rate-limiter.burstCapacity]", Long.toString(burst));
        p.put(filter + "args[redis-rate-limiter.requestedTokens]", "1");
        p.put(filter + "args[key-resolver]", "#{@" + ApiKeyResolverAutoConfiguration.BEAN_NAME + "}");
    }
}
