package dev.tollgate.spring.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.ReferenceLimitEvaluator;
import dev.tollgate.core.limits.TokenBucket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a client is told of a multi-limit decision: headers ({@link RateLimitHeaders}) and 429 bodies. */
class MultiLimitAnswersTest {

    private static final Limit ROUTE_RATE = new Limit("per-route", LimitScope.eachRoute(), new TokenBucket(10, 2));
    private static final Limit TOTAL = new Limit("total", LimitScope.tenant(), new TokenBucket(50, 10));
    private static final Limit DAILY = new Limit("daily", LimitScope.tenant(), new CalendarQuota(3, QuotaPeriod.DAY));
    private static final Limit SHADOW = new Limit("trial", LimitScope.tenant(),
            new CalendarQuota(1, QuotaPeriod.HOUR)).shadow(true);

    private final ReferenceLimitEvaluator evaluator = new ReferenceLimitEvaluator();
    private final long noon = Instant.parse("2026-12-05T12:00:00Z").toEpochMilli();

    private MultiLimitDecision request(Limit... limits) {
        return evaluator.decide(List.of(limits).stream().map(l -> LimitCharge.of("shop", "orders", l)).toList(), noon);
    }

    private static Map<String, String> headers(MultiLimitDecision decision) {
        Map<String, String> out = new LinkedHashMap<>();
        new RateLimitHeaders(true, true).writeLimits(out::put, decision);
        return out;
    }

    @Test
    void everyEnforcedPolicyIsListedAndTheClosestToExhaustionIsReported() {
        MultiLimitDecision first = request(ROUTE_RATE, TOTAL, DAILY, SHADOW);

        assertThat(headers(first)).containsExactly(
                Map.entry("X-RateLimit-Limit", "3"),
                Map.entry("X-RateLimit-Remaining", "2"),
                Map.entry("X-RateLimit-Reset", "43200"),
                Map.entry("RateLimit-Policy", "\"per-route\";q=10;w=5, \"total\";q=50;w=5, \"daily\";q=3;w=86400"),
                Map.entry("RateLimit", "\"daily\";r=2;t=43200"));
    }

    @Test
    void aDaylightSavingDayIsTwentyFiveHoursLong() {
        Limit berlin = new Limit("daily", LimitScope.tenant(),
                new CalendarQuota(3, QuotaPeriod.DAY, ZoneId.of("Europe/Berlin")));
        MultiLimitDecision decision = evaluator.decide(List.of(LimitCharge.of("shop", "orders", berlin)),
                Instant.parse("2026-10-25T12:00:00Z").toEpochMilli());
        assertThat(headers(decision).get("RateLimit-Policy")).isEqualTo("\"daily\";q=3;w=90000");
    }

    @Test
    void oneWriterDescribesEachLimitOnceButEveryWindowAsItIs() {
        RateLimitHeaders headers = new RateLimitHeaders(true, true);
        Limit berlin = new Limit("daily", LimitScope.tenant(),
                new CalendarQuota(3, QuotaPeriod.DAY, ZoneId.of("Europe/Berlin")));
        Map<String, String> dstDay = new LinkedHashMap<>();
        headers.writeLimits(dstDay::put, evaluator.decide(List.of(LimitCharge.of("shop", "orders", berlin)),
                Instant.parse("2026-10-25T12:00:00Z").toEpochMilli()));
        Map<String, String> nextDay = new LinkedHashMap<>();
        headers.writeLimits(nextDay::put, evaluator.decide(List.of(LimitCharge.of("shop", "orders", berlin)),
                Instant.parse("2026-10-26T12:00:00Z").toEpochMilli()));
        assertThat(dstDay.get("RateLimit-Policy")).isEqualTo("\"daily\";q=3;w=90000");
        assertThat(nextDay.get("RateLimit-Policy")).isEqualTo("\"daily\";q=3;w=86400");

        // A limit of the same name with another quota (a plan changed) is described anew; past the
        // most descriptions kept they are made again, still right.
        for (int quota = 4; quota < 4 + RateLimitHeaders.MAX_DESCRIBED + 5; quota++) {
            Limit changed = new Limit("daily", LimitScope.tenant(), new CalendarQuota(quota, QuotaPeriod.DAY));
            Map<String, String> out = new LinkedHashMap<>();
            headers.writeLimits(out::put, new ReferenceLimitEvaluator().decide(
                    List.of(LimitCharge.of("shop", "orders", changed)), noon));
            assertThat(out.get("RateLimit-Policy")).isEqualTo("\"daily\";q=" + quota + ";w=86400");
            assertThat(out.get("RateLimit")).isEqualTo("\"daily\";r=" + (quota - 1) + ";t=43200");
        }
    }

    @Test
    void onlyShadowLimitsShowNothing() {
        assertThat(headers(request(SHADOW))).isEmpty();
    }

    @Test
    void aRejectionNamesTheLimitThatRejectedIt() {
        for (int i = 0; i < 3; i++) {
            assertThat(request(ROUTE_RATE, DAILY).admitted()).isTrue();
        }
        MultiLimitDecision rejected = request(ROUTE_RATE, DAILY);
        assertThat(rejected.admitted()).isFalse();

        assertThat(new String(new RejectionBodies().limits("orders", rejected), StandardCharsets.UTF_8)).isEqualTo(
                "{\"type\":\"urn:tollgate:problem:rate-limited\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Limit 'daily' on route 'orders' exceeded; retry in 43200 s.\","
                        + "\"retryAfterSeconds\":43200,\"limit\":\"daily\",\"limits\":[\"daily\"]}");
    }

    @Test
    void aRequestNoWaitCanCureSaysSoAndHasNoRetry() {
        MultiLimitDecision never = evaluator.decide(List.of(LimitCharge.of("shop", "orders", ROUTE_RATE),
                new LimitCharge(DAILY.keyFor("shop", "orders"), DAILY, 4)), noon);
        assertThat(new String(new RejectionBodies().limits("orders", never), StandardCharsets.UTF_8)).isEqualTo(
                "{\"type\":\"urn:tollgate:problem:rate-limited\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"This request costs more than limit 'daily' on route 'orders' can ever allow.\","
                        + "\"limit\":\"daily\",\"limits\":[\"daily\"]}");
    }
}
