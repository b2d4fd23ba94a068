package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.LimitKey;
import dev.tollgate.core.limits.LimitPrecedence;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.RuleBookLimits;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.spring.limiter.DecisionMetrics;
import dev.tollgate.spring.limiter.DecisionSource;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The multi-limit path end to end: real HTTP into a gateway whose {@link LimitBook} (a test's) puts
 * tenants on several limits, real Redis deciding them in one call. Each test has tenants of its own.
 * What a request took is read back from Redis's states (the script's packed values) as well as from
 * the answers. Token refills are 0.001 token/s, too slow to change a whole token while a test runs;
 * the day quotas count in UTC days on Redis's clock (this machine's), so a test run across midnight
 * UTC could see its quota reset.
 */
class MultiLimitGatewayTest {

    private static final Limit PER_ROUTE_5 = new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(5, 0.001));
    private static final Limit TOTAL_8 = new Limit("total", LimitScope.tenant(), new TokenBucket(8, 0.001));
    private static final Limit DAILY_10 = new Limit("daily", LimitScope.tenant(), new CalendarQuota(10, QuotaPeriod.DAY));

    private static final Map<String, List<Limit>> LIMITS = Map.of(
            "three", List.of(PER_ROUTE_5, TOTAL_8, DAILY_10),
            "quota", List.of(new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(100, 100)),
                    new Limit("daily", LimitScope.tenant(), new CalendarQuota(2, QuotaPeriod.DAY))),
            "parallel", List.of(new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(300, 0.001)),
                    new Limit("total", LimitScope.tenant(), new TokenBucket(200, 0.001)),
                    new Limit("daily", LimitScope.tenant(), new CalendarQuota(100, QuotaPeriod.DAY))),
            "shadow", List.of(new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(100, 0.001)),
                    new Limit("trial", LimitScope.tenant(), new CalendarQuota(1, QuotaPeriod.HOUR)).shadow(true)),
            "fallback", List.of(new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(100, 0.001)),
                    new Limit("total", LimitScope.tenant(), new TokenBucket(100, 0.001)),
                    new Limit("daily", LimitScope.tenant(), new CalendarQuota(10, QuotaPeriod.DAY))),
            "costly", List.of(new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(10, 0.001), 3, false),
                    new Limit("daily", LimitScope.tenant(), new CalendarQuota(100, QuotaPeriod.DAY), 2, false)));

    /** The test's limits: the tenants above on the multi-limit path, any other on a single bucket. */
    static final LimitBook BOOK = (tenant, route) -> {
        List<Limit> limits = LIMITS.get(tenant);
        if (limits == null) {
            return RuleBookLimits.applied(RateLimitRule.of(100, 100));
        }
        return new AppliedLimits(limits.stream()
                .map(l -> new LimitPrecedence.Applied(l, LimitPrecedence.Source.PLAN)).toList(), null);
    };

    private static RedisServer redis;
    private static TestUpstream upstream;
    private static RunningGateway gateway;
    private static RedisClient client;
    private static StatefulRedisConnection<byte[], byte[]> connection;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        upstream = new TestUpstream();
        Map<String, Object> properties = new HashMap<>();
        properties.put("spring.data.redis.host", redis.host());
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.put("tollgate.source", "static");
        // Redis's decisions are under test: a cold JVM or a busy machine must not push any past the timeout.
        properties.put("tollgate.redis.timeout", "5s");
        properties.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
        properties.putAll(RunningGateway.route(1, "catalog", "GET", "/catalog/**", upstream.uri()));
        gateway = RunningGateway.start(properties,
                context -> context.registerBean(LimitBook.class, () -> BOOK));
        client = RedisClient.create(redis.uri());
        connection = client.connect(ByteArrayCodec.INSTANCE);
    }

    @AfterEach
    void everyDecisionCameFromRedis() {
        assertThat(gateway.context().getBean(DecisionMetrics.class).count(DecisionSource.LOCAL_FALLBACK)).isZero();
    }

    @AfterAll
    static void stop() {
        if (connection != null) {
            connection.close();
            client.shutdown();
        }
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

    /** A limit's state where the gateway keeps it (a tenant's states in one key, a field each). */
    private static byte[] state(LimitKey key) {
        return connection.sync().hget(MultiLimitScript.redisKey(key).getBytes(StandardCharsets.UTF_8),
                MultiLimitScript.field(key).getBytes(StandardCharsets.UTF_8));
    }

    private static long bigEndian(byte[] value, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            n = (n << 8) | (value[i] & 0xFF);
        }
        return n;
    }

    /** Whole tokens in a bucket's state (7 bytes of micro-tokens, then 6 of time). */
    private static long tokens(LimitKey key) {
        byte[] value = state(key);
        assertThat(value).as(key.toString()).hasSize(13);
        return bigEndian(value, 0, 7) / 1_000_000;
    }

    /** The count in a quota's state (6 bytes of window start, then 5 of count). */
    private static long used(LimitKey key) {
        byte[] value = state(key);
        assertThat(value).as(key.toString()).hasSize(11);
        return bigEndian(value, 6, 11);
    }

    private static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    @Test
    void everyLimitIsEnforcedAndARequestOneRejectsTakesNothingFromTheOthers() {
        HttpResponse<String> first = gateway.send("POST", "/orders", "three");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(header(first, "RateLimit-Policy"))
                .isEqualTo("\"per-route\";q=5;w=5000, \"total\";q=8;w=8000, \"daily\";q=10;w=86400");
        // Closest to exhaustion: the route's bucket, 4 left (total 7, daily 9); full again in 1,000 s.
        assertThat(header(first, "RateLimit")).isEqualTo("\"per-route\";r=4;t=1000");
        assertThat(header(first, "X-RateLimit-Limit")).isEqualTo("5");
        assertThat(header(first, "X-RateLimit-Remaining")).isEqualTo("4");
        for (int i = 0; i < 4; i++) {
            assertThat(gateway.send("POST", "/orders", "three").statusCode()).isEqualTo(200);
        }

        HttpResponse<String> byRoute = gateway.send("POST", "/orders", "three");
        assertThat(byRoute.statusCode()).isEqualTo(429);
        assertThat(Long.parseLong(header(byRoute, "Retry-After"))).isBetween(990L, 1000L); // 1 token at 0.001/s
        assertThat(byRoute.body()).contains("\"limit\":\"per-route\"", "Limit 'per-route' on route 'create-order'");
        assertThat(tokens(new LimitKey("three", "create-order", "per-route"))).isZero();
        assertThat(tokens(new LimitKey("three", LimitKey.WHOLE_TENANT, "total"))).as("5 taken, not 6").isEqualTo(3);
        assertThat(used(new LimitKey("three", LimitKey.WHOLE_TENANT, "daily"))).isEqualTo(5);

        for (int i = 0; i < 3; i++) {
            assertThat(gateway.send("GET", "/catalog/items", "three").statusCode()).isEqualTo(200);
        }
        HttpResponse<String> byTotal = gateway.send("GET", "/catalog/items", "three");
        assertThat(byTotal.statusCode()).isEqualTo(429);
        assertThat(byTotal.body()).contains("\"limit\":\"total\"", "\"limits\":[\"total\"]");
        assertThat(tokens(new LimitKey("three", LimitKey.WHOLE_TENANT, "total"))).isZero();
        assertThat(tokens(new LimitKey("three", "catalog", "per-route"))).as("3 taken, not 4").isEqualTo(2);
        assertThat(used(new LimitKey("three", LimitKey.WHOLE_TENANT, "daily"))).as("8 admitted in all, the 2 rejected took nothing").isEqualTo(8);

        DecisionMetrics metrics = gateway.context().getBean(DecisionMetrics.class);
        assertThat(metrics.limitRejections("per-route", false)).isEqualTo(1);
        assertThat(metrics.limitRejections("total", false)).isEqualTo(1);
        assertThat(metrics.limitRejections("daily", false)).isZero();
    }

    @Test
    void aSpentQuotaIsRetriedAtItsWindowsEndHoweverFar() {
        assertThat(gateway.send("POST", "/orders", "quota").statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", "quota").statusCode()).isEqualTo(200);
        long before = Instant.now().toEpochMilli();
        HttpResponse<String> rejected = gateway.send("POST", "/orders", "quota");
        long after = Instant.now().toEpochMilli();

        assertThat(rejected.statusCode()).isEqualTo(429);
        long midnight = LocalDate.ofInstant(Instant.ofEpochMilli(before), ZoneOffset.UTC).plusDays(1)
                .atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        long retryAfter = Long.parseLong(header(rejected, "Retry-After"));
        assertThat(retryAfter).isBetween((midnight - after) / 1000, (midnight - before + 999) / 1000);
        assertThat(rejected.body()).contains("\"limit\":\"daily\"", "\"retryAfterSeconds\":" + retryAfter);
        assertThat(header(rejected, "RateLimit-Policy")).isEqualTo("\"per-route\";q=100;w=1, \"daily\";q=2;w=86400");
        assertThat(header(rejected, "RateLimit")).startsWith("\"daily\";r=0;t=");
    }

    @Test
    void aThousandParallelRequestsNeverExceedTheSmallestLimit() throws Exception {
        int requests = 1000;
        ExecutorService senders = Executors.newFixedThreadPool(32);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> statuses = new ArrayList<>();
        try {
            for (int i = 0; i < requests; i++) {
                boolean orders = i % 2 == 0;
                statuses.add(senders.submit(() -> {
                    go.await();
                    return orders ? gateway.send("POST", "/orders", "parallel").statusCode()
                            : gateway.send("GET", "/catalog/x", "parallel").statusCode() + 1000;
                }));
            }
            go.countDown();
            int ordersAdmitted = 0;
            int catalogAdmitted = 0;
            for (Future<Integer> status : statuses) {
                int s = status.get();
                assertThat(s % 1000).isIn(200, 429);
                if (s == 200) {
                    ordersAdmitted++;
                } else if (s == 1200) {
                    catalogAdmitted++;
                }
            }
            // The day quota (100) is the smallest: exactly that many pass, and the rejected took nothing.
            assertThat(ordersAdmitted + catalogAdmitted).isEqualTo(100);
            assertThat(used(new LimitKey("parallel", LimitKey.WHOLE_TENANT, "daily"))).isEqualTo(100);
            assertThat(tokens(new LimitKey("parallel", LimitKey.WHOLE_TENANT, "total"))).isEqualTo(200 - 100);
            assertThat(tokens(new LimitKey("parallel", "create-order", "per-route"))).isEqualTo(300 - ordersAdmitted);
            assertThat(tokens(new LimitKey("parallel", "catalog", "per-route"))).isEqualTo(300 - catalogAdmitted);
        } finally {
            senders.shutdownNow();
        }
    }

    @Test
    void aShadowLimitIsCountedButNeverRejectsNorShows() {
        DecisionMetrics metrics = gateway.context().getBean(DecisionMetrics.class);
        double before = metrics.limitRejections("trial", true);
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = gateway.send("POST", "/orders", "shadow");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"per-route\";q=100;w=100000");
            assertThat(response.headers().map().toString()).doesNotContain("trial");
        }
        assertThat(metrics.limitRejections("trial", true) - before).isEqualTo(4);
        assertThat(used(new LimitKey("shadow", LimitKey.WHOLE_TENANT, "trial"))).as("charged while it had room").isEqualTo(1);
    }

    @Test
    void aRequestCostingMoreThanOneTakesItsCostFromEveryLimit() {
        HttpResponse<String> first = gateway.send("POST", "/orders", "costly");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(header(first, "X-RateLimit-Remaining")).isEqualTo("7"); // 10 − 3; 2 requests of 3 left
        assertThat(gateway.send("POST", "/orders", "costly").statusCode()).isEqualTo(200);
        assertThat(gateway.send("POST", "/orders", "costly").statusCode()).isEqualTo(200);
        HttpResponse<String> rejected = gateway.send("POST", "/orders", "costly");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(header(rejected, "X-RateLimit-Remaining")).isEqualTo("1");
        assertThat(rejected.body()).contains("\"limit\":\"per-route\"");
        assertThat(used(new LimitKey("costly", LimitKey.WHOLE_TENANT, "daily"))).isEqualTo(6);
    }

    @Test
    void aTenantOnOneBucketIsAnsweredAsBefore() {
        HttpResponse<String> response = gateway.send("POST", "/orders", "someone-else");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"create-order\";q=100;w=1");
        assertThat(header(response, "X-RateLimit-Remaining")).isEqualTo("99");
    }
}
