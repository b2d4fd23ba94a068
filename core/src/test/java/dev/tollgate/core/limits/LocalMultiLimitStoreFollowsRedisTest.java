package dev.tollgate.core.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.WallClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link LocalMultiLimitStore#followRedis}: the local shares carry on from what Redis answered, and
 * what the stores admitted alone is charged to Redis when it answers again. "Redis" here is the exact
 * reference ({@link ReferenceLimitEvaluator}, whose steps the script follows), N stores the
 * instances, all on one manual clock; the figures are {@link LocalMultiLimitStore}'s stated bound.
 */
class LocalMultiLimitStoreFollowsRedisTest {

    private static final String TENANT = "shop-a";
    private static final String ROUTE = "create-order";
    private static final int N = 4;
    private static final long QUOTA = 10_000;
    private static final Limit DAY = new Limit("day", LimitScope.tenant(), new CalendarQuota(QUOTA, QuotaPeriod.DAY));
    /** Roomy enough never to reject here: the quota is what is measured. */
    private static final Limit RATE = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(1_000_000, 1_000_000));

    private final AtomicLong now = new AtomicLong(Instant.parse("2026-12-05T08:00:00Z").toEpochMilli());
    private final WallClock clock = () -> Instant.ofEpochMilli(now.get());
    private final ReferenceLimitEvaluator redis = new ReferenceLimitEvaluator();
    private final List<LocalMultiLimitStore> instances = new ArrayList<>();
    private long admitted;
    /** Units of the day quota charged to Redis for what the instances admitted alone. */
    private long charged;

    LocalMultiLimitStoreFollowsRedisTest() {
        for (int i = 0; i < N; i++) {
            instances.add(new LocalMultiLimitStore(() -> N, clock));
        }
    }

    private static List<LimitCharge> request() {
        return List.of(LimitCharge.of(TENANT, ROUTE, RATE), LimitCharge.of(TENANT, ROUTE, DAY));
    }

    /** One request through instance {@code i} while Redis answers: Redis decides, the store follows, charges are made. */
    private void viaRedis(int i) {
        now.incrementAndGet();
        MultiLimitDecision decision = redis.decide(request(), now.get());
        admitted += decision.admitted() ? 1 : 0;
        List<LimitCharge> owed = instances.get(i).followRedis(decision);
        if (!owed.isEmpty()) {
            MultiLimitDecision charge = redis.decide(owed, now.get());
            assertThat(charge.admitted()).as("shadow charges never reject").isTrue();
            for (LimitOutcome outcome : charge.outcomes()) {
                assertThat(outcome.admits()).as("a charge fits what Redis reported left").isTrue();
                charged += outcome.limitDefinition().name().equals("day") ? outcome.charge().cost() : 0;
            }
        }
    }

    /** One request through instance {@code i} while Redis is down. */
    private boolean locally(int i) {
        now.incrementAndGet();
        boolean ok = instances.get(i).decide(request()).admitted();
        admitted += ok ? 1 : 0;
        return ok;
    }

    private long used() {
        return ((LimitState.Quota) redis.state(DAY.keyFor(TENANT, ROUTE))).used();
    }

    @Test
    void evenTrafficKeepsTheDayAtItsQuotaThroughAnHourWithoutRedis() {
        for (int r = 0; r < 6_000; r++) {
            viaRedis(r % N);
        }
        assertThat(admitted).isEqualTo(6_000);

        // 14:00 to 15:00 without Redis: each instance has a quarter of the 4,000 left, not of 10,000.
        now.set(Instant.parse("2026-12-05T14:00:00Z").toEpochMilli());
        long outage = 0;
        for (int r = 0; r < 20_000; r++) {
            outage += locally(r % N) ? 1 : 0;
        }
        assertThat(outage).as("at most floor(R_i / 4) each, R_i ≤ 4,000").isLessThanOrEqualTo(4_000L);

        // 15:00: Redis answers again; each instance's first decision charges what it admitted alone.
        now.set(Instant.parse("2026-12-05T15:00:00Z").toEpochMilli());
        for (int r = 0; r < 20_000; r++) {
            viaRedis(r % N);
        }
        // The first request of each instance is decided on Redis before its charge lands: the last
        // charge finds 4 units fewer left than it owes, and those 4 are the day's excess.
        assertThat(outage).isEqualTo(4_000);
        assertThat(charged).isEqualTo(outage - N);
        assertThat(used()).isEqualTo(QUOTA);
        assertThat(admitted).as("the day: the quota + N × cost at most (was up to 20,000)")
                .isLessThanOrEqualTo(QUOTA + N).isEqualTo(6_000 + outage + N);
    }

    @Test
    void unevenTrafficStaysWithinTheStatedBound() {
        // All of the morning's traffic through instance 0: the three others never heard from Redis today.
        for (int r = 0; r < 6_000; r++) {
            viaRedis(0);
        }
        now.set(Instant.parse("2026-12-05T14:00:00Z").toEpochMilli());
        long outage = 0;
        for (int r = 0; r < 20_000; r++) {
            outage += locally(r % N) ? 1 : 0;
        }
        // Instance 0: floor(4,000 / 4) = 1,000; the others a full share of 2,500 each.
        assertThat(outage).isEqualTo(1_000 + 3 * 2_500);

        now.set(Instant.parse("2026-12-05T15:00:00Z").toEpochMilli());
        for (int r = 0; r < 20_000; r++) {
            viaRedis(r % N);
        }
        long bound = QUOTA + (N - 1) * (QUOTA - 4_000) / N; // Q + (N − 1)/N × (Q − R) = 14,500
        // The two instances whose charges did not fit had their first request decided on Redis first.
        assertThat(admitted).isLessThanOrEqualTo(bound + N).isEqualTo(6_000 + 8_500 + 3);
        assertThat(used()).as("charges were taken only up to what Redis had left").isEqualTo(QUOTA);
    }

    @Test
    void whatWasAdmittedInAnEarlierWindowIsNotCharged() {
        for (int r = 0; r < 100; r++) {
            viaRedis(0);
        }
        now.set(Instant.parse("2026-12-05T23:00:00Z").toEpochMilli());
        for (int r = 0; r < 10; r++) {
            assertThat(locally(0)).isTrue();
        }
        now.set(Instant.parse("2026-12-06T00:00:01Z").toEpochMilli());
        viaRedis(0);
        assertThat(charged).as("the local admissions counted in yesterday's window").isZero();
        assertThat(used()).isEqualTo(1);
    }

    @Test
    void aTokenBucketSharesTakesEveryAdmissionRedisMakesAndNoMoreThanItsShareOfWhatRedisHasLeft() {
        Limit burst = new Limit("burst", LimitScope.eachRoute(), new TokenBucket(100, 0.001));
        LocalMultiLimitStore store = instances.get(0);
        List<LimitCharge> charges = List.of(LimitCharge.of(TENANT, ROUTE, burst));
        for (int r = 0; r < 20; r++) {
            store.followRedis(redis.decide(charges, now.get())); // Redis: 80 left; share 25 − 20 taken = 5
        }
        LimitState.Bucket state = (LimitState.Bucket) store.state(burst.keyFor(TENANT, ROUTE));
        assertThat(state.tokens()).isEqualTo(5_000_000L);

        // Other instances take 70 more from Redis: 10 left, a quarter of which is 2.5 tokens.
        for (int r = 0; r < 70; r++) {
            redis.decide(charges, now.get());
        }
        MultiLimitDecision rejected = redis.decide(List.of(new LimitCharge(burst.keyFor(TENANT, ROUTE), burst, 11)),
                now.get());
        assertThat(rejected.admitted()).isFalse();
        assertThat(store.followRedis(rejected)).isEmpty();
        state = (LimitState.Bucket) store.state(burst.keyFor(TENANT, ROUTE));
        assertThat(state.tokens()).as("a rejection takes nothing, but the share follows what is left").isEqualTo(2_500_000L);

        int alone = 0;
        for (int r = 0; r < 10; r++) {
            alone += store.decide(charges).admitted() ? 1 : 0;
        }
        assertThat(alone).isEqualTo(2);
        // Back on Redis: the two admitted alone are charged (shadow, so taken where they fit).
        MultiLimitDecision back = redis.decide(charges, now.get());
        List<LimitCharge> owed = store.followRedis(back);
        assertThat(owed).singleElement().satisfies(c -> {
            assertThat(c.cost()).isEqualTo(2);
            assertThat(c.limit().shadow()).isTrue();
            assertThat(c.key()).isEqualTo(burst.keyFor(TENANT, ROUTE));
        });
        assertThat(store.followRedis(redis.decide(charges, now.get()))).as("charged once").isEmpty();
    }

    @Test
    void nothingFollowedWhileTheStoreNeverDecidedLeavesNoChargeAndOneStatePerLimitAtMost() {
        LocalMultiLimitStore store = instances.get(0);
        for (int r = 0; r < 50; r++) {
            assertThat(store.followRedis(redis.decide(request(), now.get()))).isEmpty();
        }
        assertThat(store.size()).isEqualTo(2);
        assertThat(((LimitState.Quota) store.state(DAY.keyFor(TENANT, ROUTE))).used())
                .as("share 2,500, at most (10,000 − 50) / 4 = 2,487 left").isEqualTo(13);
    }
}
