package dev.tollgate.core.limits;

import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketLimits;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The reference evaluator against a brute-force model written from the rules of
 * docs/rules-and-keys.md alone: quota counts are recomputed from every admitted request so far, token
 * buckets are refilled at each request, and the request is admitted if every enforced limit has room. Random limits (rates, quotas
 * per minute/hour/day in UTC, Berlin and New York, shadow ones), random costs, times that cross window
 * boundaries and clock changes, and clock steps back. Checked on every request: the same decision and
 * the same room per limit, nothing written for a rejected request, a shadow limit never rejecting;
 * and at the end of each run: never more than the quota in one window, never more than a bucket
 * allows over any stretch of time.
 */
class ReferenceLimitEvaluatorPropertyTest {

    private static final String TENANT = "t";
    private static final List<String> ROUTES = List.of("r1", "r2", "r3");
    private static final List<ZoneId> ZONES = List.of(ZoneOffset.UTC, ZoneId.of("Europe/Berlin"),
            ZoneId.of("America/New_York"));
    /** Starting points just before boundaries: a year's end, a leap day, Berlin's and New York's changes. */
    private static final List<Long> STARTS = List.of("2026-12-31T23:59:58Z", "2028-02-29T23:59:30Z",
            "2026-03-29T00:59:50Z", "2026-10-25T00:59:50Z", "2026-10-24T21:59:50Z", "2026-11-01T05:59:50Z",
            "2026-03-08T06:59:50Z").stream().map(s -> Instant.parse(s).toEpochMilli()).toList();

    /**
     * One charge of an admitted request, as the brute force saw it: the time it counted at, and for a
     * quota the start of the window holding that time (0 for a bucket).
     */
    private record Charged(LimitKey key, long effectiveMillis, long windowStart, long cost, boolean tookCost) {
    }

    @Test
    void decisionsMatchABruteForceModelAndNeverOverAdmit() {
        forAll(150, random -> {
            List<Limit> limits = randomLimits(random);
            ReferenceLimitEvaluator evaluator = new ReferenceLimitEvaluator();
            BruteForce model = new BruteForce();
            long now = STARTS.get(random.nextInt(STARTS.size()));
            for (int request = 0; request < 150; request++) {
                now = nextTime(random, now);
                String route = ROUTES.get(random.nextInt(ROUTES.size()));
                List<LimitCharge> charges = new ArrayList<>();
                for (Limit limit : limits) {
                    if (limit.appliesTo(route)) {
                        long cost = random.nextInt(8) == 0 ? limit.cost() + random.nextInt(3) : limit.cost();
                        charges.add(new LimitCharge(limit.keyFor(TENANT, route), limit, cost));
                    }
                }
                Map<LimitKey, LimitState> before = evaluator.states();

                MultiLimitDecision decision = evaluator.decide(charges, now);
                List<Boolean> room = model.room(charges, now);

                boolean expected = true;
                for (int i = 0; i < charges.size(); i++) {
                    LimitOutcome outcome = decision.outcomes().get(i);
                    assertThat(outcome.admits()).as("room in %s at %d", charges.get(i).limit(), now).isEqualTo(room.get(i));
                    expected &= room.get(i) || charges.get(i).limit().shadow();
                    if (charges.get(i).limit().allowance() instanceof CalendarQuota quota) {
                        assertThat(outcome.remaining())
                                .isEqualTo(Math.max(0, quota.quota() - model.countAfter(charges.get(i), now, decision.admitted(), room.get(i))));
                    }
                }
                assertThat(decision.admitted()).isEqualTo(expected);
                assertThat(decision.rejectedBy().isEmpty()).isEqualTo(decision.admitted());
                assertThat(decision.rejectedBy()).noneMatch(LimitOutcome::shadow);
                if (charges.stream().allMatch(c -> c.limit().shadow())) {
                    assertThat(decision.admitted()).isTrue();
                }
                decision.closestToExhaustion().ifPresent(closest -> assertThat(decision.outcomes())
                        .filteredOn(o -> !o.shadow())
                        .allSatisfy(o -> assertThat(o.requestsLeft()).isGreaterThanOrEqualTo(closest.requestsLeft())));
                if (decision.admitted()) {
                    model.admit(charges, room, now);
                } else {
                    assertThat(evaluator.states()).as("a rejected request writes nothing").isEqualTo(before);
                    assertRetryIsExact(evaluator, charges, now, decision.retryAfterMillis());
                }
            }
            model.assertNeverOverAdmitted(limits);
        });
    }

    /**
     * With nothing else happening, the same request passes exactly {@code retry} ms later, not a
     * millisecond sooner (the limits that had room keep it: buckets only refill, a quota's count only
     * starts again).
     */
    private static void assertRetryIsExact(ReferenceLimitEvaluator evaluator, List<LimitCharge> charges, long now,
                                           long retry) {
        if (retry == dev.tollgate.core.Decision.NEVER) {
            return;
        }
        assertThat(copyOf(evaluator).decide(charges, now + retry).admitted()).as("admitted after the retry").isTrue();
        assertThat(copyOf(evaluator).decide(charges, now + retry - 1).admitted()).as("rejected just before").isFalse();
    }

    private static ReferenceLimitEvaluator copyOf(ReferenceLimitEvaluator evaluator) {
        ReferenceLimitEvaluator copy = new ReferenceLimitEvaluator();
        evaluator.states().forEach(copy::put);
        return copy;
    }

    private static List<Limit> randomLimits(SplittableRandom random) {
        int count = 1 + random.nextInt(4);
        List<Limit> limits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LimitScope scope = switch (random.nextInt(3)) {
                case 0 -> LimitScope.route(ROUTES.get(random.nextInt(ROUTES.size())));
                case 1 -> LimitScope.eachRoute();
                default -> LimitScope.tenant();
            };
            Allowance allowance = random.nextBoolean()
                    ? new TokenBucket(1 + random.nextInt(5), (1 + random.nextInt(40)) / 8.0)
                    : new CalendarQuota(1 + random.nextInt(6),
                            QuotaPeriod.values()[random.nextInt(3)], ZONES.get(random.nextInt(ZONES.size())));
            long cost = 1 + random.nextInt((int) Math.min(2, allowance.maxCost()));
            limits.add(new Limit("l" + i, scope, allowance, cost, random.nextInt(5) == 0));
        }
        return limits;
    }

    /** Mostly small steps, some across minutes and hours, and some steps back (Redis's clock is not monotonic). */
    private static long nextTime(SplittableRandom random, long now) {
        int pick = random.nextInt(100);
        if (pick < 8) {
            return now - 1 - random.nextInt(5_000);
        }
        if (pick < 15) {
            return now + random.nextInt(120_000);
        }
        if (pick < 17) {
            return now + random.nextInt(7_200_000);
        }
        return now + random.nextInt(400);
    }

    /** The specification, computed the slow and obvious way. */
    private static final class BruteForce {

        private final List<Charged> history = new ArrayList<>();
        /** Per bucket: micro-tokens and the time they were counted at, simulated step by step. */
        private final Map<LimitKey, long[]> buckets = new HashMap<>();
        /** Per quota key: the latest time an admitted request counted it at (it never goes back). */
        private final Map<LimitKey, Long> quotaClock = new HashMap<>();
        private final Map<LimitKey, Limit> limitOf = new HashMap<>();

        List<Boolean> room(List<LimitCharge> charges, long now) {
            Map<LimitKey, long[]> bucketsNow = new HashMap<>();
            Map<LimitKey, Long> takenNow = new HashMap<>();
            List<Boolean> room = new ArrayList<>();
            for (LimitCharge charge : charges) {
                if (charge.limit().allowance() instanceof TokenBucket bucket) {
                    long[] state = bucketsNow.computeIfAbsent(charge.key(), k -> bucketAt(k, bucket, now));
                    long cost = charge.cost() * BucketLimits.MICROS_PER_TOKEN;
                    boolean fits = state[0] >= cost;
                    if (fits) {
                        state[0] -= cost;
                    }
                    room.add(fits);
                } else {
                    CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
                    long window = quota.windowAt(effective(charge.key(), now)).startMillis();
                    long used = countIn(charge.key(), quota, window) + takenNow.getOrDefault(charge.key(), 0L);
                    boolean fits = used + charge.cost() <= quota.quota();
                    if (fits) {
                        takenNow.merge(charge.key(), charge.cost(), Long::sum);
                    }
                    room.add(fits);
                }
            }
            return room;
        }

        /** What a quota's count is after this request (for its reported remaining). */
        long countAfter(LimitCharge charge, long now, boolean admitted, boolean fits) {
            CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
            long window = quota.windowAt(effective(charge.key(), now)).startMillis();
            return countIn(charge.key(), quota, window) + (admitted && fits ? charge.cost() : 0);
        }

        void admit(List<LimitCharge> charges, List<Boolean> room, long now) {
            Map<LimitKey, long[]> bucketsNow = new HashMap<>();
            for (int i = 0; i < charges.size(); i++) {
                LimitCharge charge = charges.get(i);
                limitOf.put(charge.key(), charge.limit());
                if (charge.limit().allowance() instanceof TokenBucket bucket) {
                    long[] state = bucketsNow.computeIfAbsent(charge.key(), k -> bucketAt(k, bucket, now));
                    if (room.get(i)) {
                        state[0] -= charge.cost() * BucketLimits.MICROS_PER_TOKEN;
                    }
                    buckets.put(charge.key(), state);
                    history.add(new Charged(charge.key(), state[1], 0, charge.cost(), room.get(i)));
                } else {
                    long effective = effective(charge.key(), now);
                    quotaClock.put(charge.key(), effective);
                    long window = ((CalendarQuota) charge.limit().allowance()).windowAt(effective).startMillis();
                    history.add(new Charged(charge.key(), effective, window, charge.cost(), room.get(i)));
                }
            }
        }

        private long effective(LimitKey key, long now) {
            return Math.max(now, quotaClock.getOrDefault(key, Long.MIN_VALUE));
        }

        private long countIn(LimitKey key, CalendarQuota quota, long windowStart) {
            long used = 0;
            for (Charged charged : history) {
                if (charged.key.equals(key) && charged.tookCost && charged.windowStart == windowStart) {
                    used += charged.cost;
                }
            }
            return used;
        }

        /** {tokens, time}: a missing bucket is full; a time too far ahead is one fill time ahead; no refill backwards. */
        private long[] bucketAt(LimitKey key, TokenBucket bucket, long now) {
            long capacity = bucket.capacity() * BucketLimits.MICROS_PER_TOKEN;
            long perMilli = Math.round(bucket.refillPerSecond() * 1000);
            long fill = (capacity + perMilli - 1) / perMilli;
            long[] stored = buckets.get(key);
            if (stored == null) {
                return new long[] {capacity, now};
            }
            long tokens = Math.min(stored[0], capacity);
            long ts = Math.min(stored[1], now + fill);
            if (ts < now) { // the test's numbers are small: no overflow to guard against
                tokens = Math.min(capacity, tokens + (now - ts) * perMilli);
            }
            return new long[] {tokens, Math.max(ts, now)};
        }

        /** Never more than the quota in one window; never more than capacity + rate × time from a bucket. */
        void assertNeverOverAdmitted(List<Limit> limits) {
            Map<List<Object>, Long> perWindow = new HashMap<>();
            Map<LimitKey, List<Charged>> perBucket = new HashMap<>();
            for (Charged charged : history) {
                Limit limit = limitOf.get(charged.key);
                if (limit.allowance() instanceof CalendarQuota quota) {
                    if (!charged.tookCost) {
                        continue;
                    }
                    long window = charged.windowStart;
                    long total = perWindow.merge(List.of(charged.key, window), charged.cost, Long::sum);
                    assertThat(total).as("admitted in window %d of %s", window, limit).isLessThanOrEqualTo(quota.quota());
                } else {
                    perBucket.computeIfAbsent(charged.key, k -> new ArrayList<>()).add(charged);
                }
            }
            perBucket.forEach((key, taken) -> {
                TokenBucket bucket = (TokenBucket) limitOf.get(key).allowance();
                long capacity = bucket.capacity() * BucketLimits.MICROS_PER_TOKEN;
                long perMilli = Math.round(bucket.refillPerSecond() * 1000);
                // Over any run of admissions whose bucket times do not go back: taken <= capacity + rate × span.
                long prefix = 0;
                long best = Long.MIN_VALUE; // max over run starts i of (rate × t_i - prefix before i)
                long lastTime = Long.MIN_VALUE;
                for (Charged charged : taken) {
                    if (charged.effectiveMillis < lastTime) {
                        // The bucket's time moved back (a step back of more than one fill time, taken as
                        // one fill time ahead, as bucket_refill.lua does): a new run. Any write does it,
                        // a shadow limit's uncharged one too.
                        best = Long.MIN_VALUE;
                    }
                    best = Math.max(best, perMilli * charged.effectiveMillis - prefix);
                    prefix += charged.tookCost ? charged.cost * BucketLimits.MICROS_PER_TOKEN : 0;
                    assertThat(prefix - perMilli * charged.effectiveMillis + best)
                            .as("taken from %s", limitOf.get(key)).isLessThanOrEqualTo(capacity);
                    lastTime = charged.effectiveMillis;
                }
            });
        }
    }
}
