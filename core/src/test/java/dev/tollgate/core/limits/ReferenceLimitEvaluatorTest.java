package dev.tollgate.core.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.Decision;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReferenceLimitEvaluatorTest {

    private static final String TENANT = "shop-a";
    private static final String ROUTE = "create-order";

    /** 2 tokens of burst, 1 token/s, on each route. */
    private static final Limit RATE = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(2, 1));
    /** 3 a day (UTC) for the tenant as a whole. */
    private static final Limit DAY = new Limit("day", LimitScope.tenant(), new CalendarQuota(3, QuotaPeriod.DAY));

    private final ReferenceLimitEvaluator evaluator = new ReferenceLimitEvaluator();

    private static long millis(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    private MultiLimitDecision request(long now, String route, Limit... limits) {
        return evaluator.decide(List.of(limits).stream().map(l -> LimitCharge.of(TENANT, route, l)).toList(), now);
    }

    @Test
    void aRequestOneLimitRejectsTakesNothingFromTheOthers() {
        long noon = millis("2026-12-05T12:00:00Z");
        // The day quota's 3 go first, on three routes (each has its own rate bucket).
        for (String route : List.of("r1", "r2", "r3")) {
            assertThat(request(noon, route, RATE, DAY).admitted()).isTrue();
        }
        var before = evaluator.states();

        MultiLimitDecision rejected = request(noon, "r4", RATE, DAY);

        assertThat(rejected.admitted()).isFalse();
        assertThat(rejected.rejectedBy()).extracting(o -> o.limitDefinition().name()).containsExactly("day");
        assertThat(evaluator.states()).isEqualTo(before); // r4's rate bucket was not charged, nor created
        LimitOutcome rate = rejected.outcomes().get(0);
        assertThat(rate.admits()).isTrue();
        assertThat(rate.remaining()).isEqualTo(2);
        // Retry when the quota's window ends: midnight UTC, 12 h away.
        assertThat(rejected.retryAfterMillis()).isEqualTo(12 * 3_600_000L);
        assertThat(rejected.outcomes().get(1).window().endMillis()).isEqualTo(millis("2026-12-06T00:00:00Z"));
    }

    @Test
    void theRetryIsWhenEveryRejectingLimitAdmits() {
        long noon = millis("2026-12-05T12:00:00Z");
        Limit tight = new Limit("tight", LimitScope.route(ROUTE), new TokenBucket(1, 0.5)); // 1 token per 2 s
        assertThat(request(noon, ROUTE, tight, RATE).admitted()).isTrue();
        assertThat(request(noon, ROUTE, tight, RATE).admitted()).isFalse();
        // Only "tight" rejects; RATE still has 1 token.
        MultiLimitDecision second = request(noon + 500, ROUTE, tight, RATE);
        assertThat(second.rejectedBy()).extracting(o -> o.limitDefinition().name()).containsExactly("tight");
        assertThat(second.retryAfterMillis()).isEqualTo(1500);
        assertThat(request(noon + 1999, ROUTE, tight, RATE).admitted()).isFalse();
        assertThat(request(noon + 2000, ROUTE, tight, RATE).admitted()).isTrue();
    }

    @Test
    void aDayQuotaStartsAgainAtMidnightToTheMillisecond() {
        Limit quota = new Limit("day", LimitScope.tenant(), new CalendarQuota(1, QuotaPeriod.DAY));
        assertThat(request(millis("2026-12-31T23:59:59.000Z"), ROUTE, quota).admitted()).isTrue();
        MultiLimitDecision last = request(millis("2026-12-31T23:59:59.999Z"), ROUTE, quota);
        assertThat(last.admitted()).isFalse();
        assertThat(last.retryAfterMillis()).isEqualTo(1);
        assertThat(request(millis("2027-01-01T00:00:00.000Z"), ROUTE, quota).admitted()).isTrue();
        assertThat(request(millis("2027-01-01T00:00:00.001Z"), ROUTE, quota).admitted()).isFalse();
    }

    @Test
    void aMonthQuotaInAZoneResetsOnItsLocalFirst() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        Limit month = new Limit("month", LimitScope.tenant(), new CalendarQuota(2, QuotaPeriod.MONTH, berlin));
        // 1 March 2028 00:00 in Berlin is 29 February 23:00 UTC (a leap year).
        assertThat(request(millis("2028-02-29T22:59:59.999Z"), ROUTE, month).admitted()).isTrue();
        assertThat(request(millis("2028-02-29T22:59:59.999Z"), ROUTE, month).admitted()).isTrue();
        assertThat(request(millis("2028-02-29T22:59:59.999Z"), ROUTE, month).admitted()).isFalse();
        assertThat(request(millis("2028-02-29T23:00:00.000Z"), ROUTE, month).admitted()).isTrue();
    }

    @Test
    void aClockStepBackNeitherRefillsABucketNorReopensAWindow() {
        Limit quota = new Limit("day", LimitScope.tenant(), new CalendarQuota(1, QuotaPeriod.DAY));
        long afterMidnight = millis("2027-01-01T00:00:00.500Z");
        assertThat(request(afterMidnight, ROUTE, quota, RATE).admitted()).isTrue();

        // Redis's clock steps back 1 s, into the previous day: the count stays in the new day's window.
        MultiLimitDecision back = request(afterMidnight - 1000, ROUTE, quota);
        assertThat(back.admitted()).isFalse();
        assertThat(back.outcomes().get(0).window().startMillis()).isEqualTo(millis("2027-01-01T00:00:00Z"));
        assertThat(back.retryAfterMillis()).isEqualTo(millis("2027-01-02T00:00:00Z") - (afterMidnight - 1000));

        // The bucket (1 of 2 tokens left) does not refill while the clock catches up.
        assertThat(request(afterMidnight - 1000, ROUTE, RATE).admitted()).isTrue();
        MultiLimitDecision empty = request(afterMidnight - 400, ROUTE, RATE);
        assertThat(empty.admitted()).isFalse();
        assertThat(empty.retryAfterMillis()).isEqualTo(400 + 1000); // 400 ms to catch up, then 1 s for a token
    }

    @Test
    void afterAStepBackOfMoreThanAFillTimeARejectionWaitsForTheStoredTime() {
        long t = millis("2026-12-05T12:00:00Z");
        assertThat(request(t, ROUTE, RATE).admitted()).isTrue();
        assertThat(request(t, ROUTE, RATE).admitted()).isTrue(); // empty, written at t

        // Redis's clock steps back 10 s; RATE fills in 2 s. Nothing is written on a rejection, and
        // nothing refills before the clock passes t: the wait is 10 s + 1 s for a token, not 2 s + 1 s.
        MultiLimitDecision rejected = request(t - 10_000, ROUTE, RATE);
        assertThat(rejected.admitted()).isFalse();
        assertThat(rejected.retryAfterMillis()).isEqualTo(11_000);
        assertThat(request(t - 10_000 + 10_999, ROUTE, RATE).admitted()).isFalse();
        assertThat(request(t - 10_000 + 11_000, ROUTE, RATE).admitted()).isTrue();
    }

    @Test
    void afterAStepBackAnAdmissionWritesTheBucketOneFillTimeAhead() {
        long t = millis("2026-12-05T12:00:00Z");
        assertThat(request(t, ROUTE, RATE).admitted()).isTrue(); // 1 token left, written at t

        // 10 s back: the admission writes the bucket as of one fill time (2 s) ahead of the clock.
        MultiLimitDecision admitted = request(t - 10_000, ROUTE, RATE);
        assertThat(admitted.admitted()).isTrue();
        assertThat(evaluator.state(RATE.keyFor(TENANT, ROUTE))).isEqualTo(new LimitState.Bucket(0, t - 8_000));
        assertThat(admitted.outcomes().get(0).retryAfterMillis()).isEqualTo(2_000 + 1_000);
    }

    @Test
    void shadowLimitsAreChargedAndReportedButNeverReject() {
        long now = millis("2026-12-05T12:00:00Z");
        Limit shadowDay = new Limit("trial-day", LimitScope.tenant(), new CalendarQuota(1, QuotaPeriod.DAY), 1, true);
        MultiLimitDecision first = request(now, ROUTE, RATE, shadowDay);
        assertThat(first.admitted()).isTrue();
        assertThat(first.outcomes().get(1).remaining()).isZero(); // charged

        MultiLimitDecision second = request(now, ROUTE, RATE, shadowDay);
        assertThat(second.admitted()).isTrue();
        assertThat(second.rejectedBy()).isEmpty();
        assertThat(second.shadowRejections()).extracting(o -> o.limitDefinition().name()).containsExactly("trial-day");
        assertThat(second.closestToExhaustion()).get().extracting(o -> o.limitDefinition().name()).isEqualTo("rate");

        // The rate bucket is now empty: an enforced limit rejects, and the shadow one is not charged either.
        MultiLimitDecision third = request(now, ROUTE, RATE, shadowDay);
        assertThat(third.admitted()).isFalse();
        assertThat(third.rejectedBy()).extracting(o -> o.limitDefinition().name()).containsExactly("rate");
    }

    @Test
    void theLimitClosestToExhaustionHasTheFewestRequestsLeft() {
        long now = millis("2026-12-05T12:00:00Z");
        Limit big = new Limit("big", LimitScope.tenant(), new CalendarQuota(1000, QuotaPeriod.MONTH));
        MultiLimitDecision decision = request(now, ROUTE, big, RATE);
        assertThat(decision.closestToExhaustion()).get().satisfies(o -> {
            assertThat(o.limitDefinition().name()).isEqualTo("rate");
            assertThat(o.requestsLeft()).isEqualTo(1);
            assertThat(o.remaining()).isEqualTo(1);
            assertThat(o.limit()).isEqualTo(2);
        });
        assertThat(decision.outcomes().get(0).remaining()).isEqualTo(999);
        // With every limit at 0 left, the one that stays short longest: the month.
        request(now, ROUTE, RATE);
        Limit one = new Limit("one", LimitScope.tenant(), new CalendarQuota(1, QuotaPeriod.MONTH));
        MultiLimitDecision both = request(now, "other", one, new Limit("burst", LimitScope.eachRoute(), new TokenBucket(1, 1)));
        assertThat(both.admitted()).isTrue();
        assertThat(both.closestToExhaustion()).get().extracting(o -> o.limitDefinition().name()).isEqualTo("one");
    }

    @Test
    void aCostAboveTheCapacityOrQuotaNeverPasses() {
        long now = millis("2026-12-05T12:00:00Z");
        MultiLimitDecision decision = evaluator.decide(List.of(
                new LimitCharge(RATE.keyFor(TENANT, ROUTE), RATE, 3),
                new LimitCharge(DAY.keyFor(TENANT, ROUTE), DAY, 4)), now);
        assertThat(decision.admitted()).isFalse();
        assertThat(decision.rejectedBy()).hasSize(2);
        assertThat(decision.retryAfterMillis()).isEqualTo(Decision.NEVER);
        assertThat(evaluator.states()).isEmpty();
    }

    @Test
    void aStateOfTheOtherKindCountsAsMissing() {
        long now = millis("2026-12-05T12:00:00Z");
        // "rate" was a quota (spent) and is now a token bucket under the same name: a full bucket.
        evaluator.put(RATE.keyFor(TENANT, ROUTE), new LimitState.Quota(0, 1_000));
        assertThat(request(now, ROUTE, RATE).outcomes().get(0).remaining()).isEqualTo(1);
        evaluator.put(DAY.keyFor(TENANT, ROUTE), new LimitState.Bucket(0, now));
        assertThat(request(now, ROUTE, DAY).outcomes().get(0).remaining()).isEqualTo(2);
    }

    @Test
    void aKeyChargedTwiceInOneRequestSeesTheFirstCharge() {
        long now = millis("2026-12-05T12:00:00Z");
        LimitCharge two = new LimitCharge(RATE.keyFor(TENANT, ROUTE), RATE, 2);
        assertThat(evaluator.decide(List.of(two, two), now).admitted()).isFalse(); // 4 > 2 tokens
        assertThat(evaluator.decide(List.of(two), now).admitted()).isTrue();
    }
}
