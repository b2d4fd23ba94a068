package dev.tollgate.core.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.Decision;
import dev.tollgate.core.WallClock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LocalMultiLimitStoreTest {

    private static final String TENANT = "shop-a";
    private static final String ROUTE = "create-order";

    /** 10 tokens of burst, 1 token/s, on each route. */
    private static final Limit RATE = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(10, 1));
    /** 100 a second for the tenant as a whole. */
    private static final Limit TOTAL = new Limit("total", LimitScope.tenant(), new TokenBucket(100, 100));
    /** 10 a day (UTC) for the tenant as a whole. */
    private static final Limit DAY = new Limit("day", LimitScope.tenant(), new CalendarQuota(10, QuotaPeriod.DAY));

    private final AtomicLong now = new AtomicLong(millis("2026-12-05T12:00:00Z"));
    private final AtomicInteger instances = new AtomicInteger(1);
    private final WallClock clock = () -> Instant.ofEpochMilli(now.get());
    private final LocalMultiLimitStore store = new LocalMultiLimitStore(instances::get, clock);

    private static long millis(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    private MultiLimitDecision request(String route, Limit... limits) {
        return store.decide(List.of(limits).stream().map(l -> LimitCharge.of(TENANT, route, l)).toList());
    }

    private int admittedOf(int requests, String route, Limit... limits) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            admitted += request(route, limits).admitted() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void aRequestOneLimitRejectsTakesNothingFromTheOthers() {
        Limit tight = new Limit("tight", LimitScope.route(ROUTE), new TokenBucket(1, 0.001));
        assertThat(request(ROUTE, tight, DAY).admitted()).isTrue();
        LimitState dayBefore = store.state(DAY.keyFor(TENANT, ROUTE));

        MultiLimitDecision rejected = request(ROUTE, tight, DAY);

        assertThat(rejected.admitted()).isFalse();
        assertThat(rejected.rejectedBy()).extracting(o -> o.limitDefinition().name()).containsExactly("tight");
        assertThat(store.state(DAY.keyFor(TENANT, ROUTE))).isEqualTo(dayBefore);
        assertThat(((LimitState.Quota) dayBefore).used()).isEqualTo(1);
        assertThat(rejected.outcomes().get(1).remaining()).isEqualTo(9);
    }

    @Test
    void withOneInstanceItDecidesExactlyAsTheReference() {
        ReferenceLimitEvaluator reference = new ReferenceLimitEvaluator();
        long start = now.get();
        for (int i = 0; i < 300; i++) {
            now.set(start + i * 137L);
            String route = i % 3 == 0 ? "a" : "b";
            List<LimitCharge> charges = List.of(LimitCharge.of(TENANT, route, RATE), LimitCharge.of(TENANT, route, TOTAL),
                    LimitCharge.of(TENANT, route, DAY.withCost(1)));
            assertThat(store.decide(charges)).isEqualTo(reference.decide(charges, now.get()));
        }
    }

    @Test
    void eachLimitIsDividedByTheLiveInstances() {
        instances.set(4);
        // Bucket: 10 tokens / 4 = 2.5 tokens of burst: two requests. Quota: floor(10 / 4) = 2 a day.
        assertThat(admittedOf(5, ROUTE, RATE)).isEqualTo(2);
        assertThat(admittedOf(5, "other", DAY)).isEqualTo(2);
        // Rate: 1 token/s / 4 = 0.25 token/s, so 4 s for the next (0.5 + 0.25 × 2 = 1 token).
        now.addAndGet(1_999);
        assertThat(request(ROUTE, RATE).admitted()).isFalse();
        now.addAndGet(1);
        assertThat(request(ROUTE, RATE).admitted()).isTrue();

        // N is read on every decision: with 2 instances the day's share is 5.
        instances.set(2);
        assertThat(admittedOf(5, "other", DAY)).isEqualTo(3);
    }

    @Test
    void aQuotaShareNeverFallsBelowTheCost() {
        instances.set(4);
        Limit small = new Limit("small", LimitScope.tenant(), new CalendarQuota(3, QuotaPeriod.DAY));
        assertThat(admittedOf(3, ROUTE, small)).as("floor(3 / 4) = 0, raised to the cost").isEqualTo(1);
        Limit costly = small.withCost(2);
        Limit other = new Limit("other", LimitScope.tenant(), new CalendarQuota(3, QuotaPeriod.HOUR), 2, false);
        assertThat(admittedOf(3, ROUTE, other)).as("share 2: one request of cost 2").isEqualTo(1);
        MultiLimitDecision tooCostly = store.decide(List.of(new LimitCharge(costly.keyFor(TENANT, ROUTE), costly, 4)));
        assertThat(tooCostly.retryAfterMillis()).as("a cost above the whole quota").isEqualTo(Decision.NEVER);
    }

    @Test
    void aSpentQuotaWaitsForItsWindowsEndToTheMillisecond() {
        now.set(millis("2026-12-05T23:59:50Z"));
        assertThat(admittedOf(10, ROUTE, DAY)).isEqualTo(10);
        now.set(millis("2026-12-05T23:59:59.999Z"));
        MultiLimitDecision rejected = request(ROUTE, DAY);
        assertThat(rejected.admitted()).isFalse();
        assertThat(rejected.retryAfterMillis()).isEqualTo(1);

        now.set(millis("2026-12-06T00:00:00.000Z"));
        assertThat(admittedOf(11, ROUTE, DAY)).isEqualTo(10);
    }

    @Test
    void aClockStepBackNeverReopensASpentWindow() {
        now.set(millis("2026-12-06T00:00:01Z"));
        assertThat(admittedOf(10, ROUTE, DAY)).isEqualTo(10);
        now.set(millis("2026-12-05T23:59:59Z"));
        assertThat(request(ROUTE, DAY).admitted()).isFalse();
    }

    @Test
    void aShadowLimitIsChargedButNeverRejects() {
        Limit shadowDay = new Limit("day", LimitScope.tenant(), new CalendarQuota(2, QuotaPeriod.DAY)).shadow(true);
        for (int i = 0; i < 5; i++) {
            assertThat(request(ROUTE, RATE, shadowDay).admitted()).isTrue();
        }
        MultiLimitDecision last = request(ROUTE, RATE, shadowDay);
        assertThat(last.shadowRejections()).hasSize(1);
        assertThat(((LimitState.Quota) store.state(shadowDay.keyFor(TENANT, ROUTE))).used()).isEqualTo(2);
    }

    @Test
    void statesAreDroppedOnceTheyNoLongerMatterWithoutChangingAnyDecision() {
        assertThat(request(ROUTE, RATE, DAY).admitted()).isTrue();
        assertThat(request("other", RATE).admitted()).isTrue();
        assertThat(store.size()).isEqualTo(3);

        now.addAndGet(999); // the rate buckets are full again after 1 s (1 token/s)
        assertThat(store.evictExpired()).isZero();
        now.addAndGet(1);
        assertThat(store.evictExpired()).isEqualTo(2);
        assertThat(store.state(DAY.keyFor(TENANT, ROUTE))).isNotNull();

        now.set(millis("2026-12-06T00:00:00Z"));
        assertThat(store.evictExpired()).isEqualTo(1);
        assertThat(store.size()).isZero();
        assertThat(request(ROUTE, DAY).outcomes().get(0).remaining()).isEqualTo(9);
    }

    @Test
    void aRejectedRequestLeavesNoStateBehind() {
        Limit never = new Limit("never", LimitScope.route(ROUTE), new TokenBucket(1, 1));
        MultiLimitDecision rejected = store.decide(List.of(LimitCharge.of(TENANT, ROUTE, RATE),
                new LimitCharge(never.keyFor(TENANT, ROUTE), never, 2)));
        assertThat(rejected.admitted()).isFalse();
        assertThat(store.size()).isZero();
    }
}
