package dev.tollgate.core.limits;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.TokenBucketMath;
import dev.tollgate.core.WallClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * The multi-limit path's local fallback: decides a request's limits in this JVM's memory while Redis
 * cannot, all or nothing, with exactly {@link ReferenceLimitEvaluator}'s steps, on this instance's
 * share of each limit, N being the number of live gateway instances (read on every decision):
 * <ul>
 *   <li>a token bucket: capacity and rate divided by N, with {@link BucketLimits#dividedAmong}'s
 *       rounding and floors (capacity at least the cost, rate at least 0.001 token/s);</li>
 *   <li>a calendar quota: {@code floor(quota / N)} per window, at least the cost (a share that could
 *       not hold one request would reject it for the whole window), never more than the quota.</li>
 * </ul>
 * Time is the injected {@link WallClock} (epoch ms: calendar windows are on it), for buckets too: a
 * step back of this clock mints nothing (the reference's rule), a step forward refills at most a
 * full share.
 *
 * <p><b>Following Redis.</b> While Redis decides, {@link #followRedis} brings this instance's share
 * of each limit in line with what Redis answered (on every Redis decision of this instance, under
 * the same stripe lock, one state written per limit):
 * <ul>
 *   <li>a token bucket: an admission Redis made is also taken from the local share (as
 *       {@code LocalFallbackLimiter.recordAdmitted} does on the single-bucket path), and the share
 *       holds no more than {@code remaining / N} of what Redis reported;</li>
 *   <li>a calendar quota: in the window Redis counted in, the share has at most
 *       {@code floor(remaining / N)} left (remaining being Redis's), never more than it had.</li>
 * </ul>
 * And what this store admits on its own is kept per limit, so that when Redis answers again the
 * first Redis decision of each limit charges Redis with it ({@link #followRedis} returns the
 * charges: shadow charges of the same limits, taken where they fit, at most what Redis reported
 * left, a quota's only in the window it was admitted in, a bucket's at most a capacity). Cost on
 * the hot path: one stripe lock and at most one small state record per limit per Redis decision
 * (none where nothing changes); the owed amounts are looked at only while some are kept (one
 * atomic read otherwise), and a list is allocated only when there is something to charge.
 *
 * <p><b>Error bound</b> of a calendar quota {@code Q} on N instances (N right), Redis down for a while
 * in one window after Redis had admitted {@code Q − R} in it: instance {@code i} falls back with at
 * most {@code R_i / N} left, {@code R_i} being what Redis reported left at that instance's last Redis
 * decision in the window ({@code R_i ≥ R}; {@code Q} if it had none), so the cluster admits at most
 * {@code Σ R_i / N} during the outage; back on Redis, those admissions are charged to Redis, which
 * then admits at most what is left. Over the window at most
 * {@code Q + max(0, Σ R_i / N − R) + N × cost}: the last term because an instance learns that
 * Redis is back from a decision Redis makes before that instance's charge lands, so at most one
 * request per instance is admitted against units its charge then no longer finds (one per request
 * it has in flight to Redis at that moment under concurrent traffic; never a lease's worth: no lease
 * is fetched while this store {@link #owesRedis owes Redis} or its charge is in flight) (plus the floors
 * below, plus any charge that failed or found less room than it owed because other instances took
 * it first: counted as {@code tollgate.fallback.charges{outcome=failed}}):
 * <ul>
 *   <li>traffic spread evenly, every instance having asked Redis shortly before it failed:
 *       {@code R_i ≈ R}, so at most about {@code Q}. Worked example: a day quota of 10,000 on 4
 *       instances, Redis down from 14:00 to 15:00 after 6,000 were admitted that day: during the
 *       hour each instance has at most 1,000 left (4,000 in all), then rejects until Redis answers;
 *       at 15:00 each charges Redis with what it admitted alone, so the day ends at 10,004 at most
 *       (before this store followed Redis: up to 20,000);</li>
 *   <li>traffic uneven, the worst case being instances that had no Redis decision in the window and
 *       get traffic only during the outage: at most {@code Q + (N − 1)/N × (Q − R) + N × cost}:
 *       14,504 in the example, one instance having taken all of the day's traffic before 14:00 and
 *       the load spread over all four during the outage;</li>
 *   <li>outages without Redis ever answering again in the window: no charge is needed, the bound
 *       above holds as it is.</li>
 * </ul>
 * A token bucket: the same reasoning per burst; at a switch to the fallback the cluster admits at
 * most {@code Σ_i min(share_i, R_i / N)} at once, at most one capacity, then refills at the rate;
 * when Redis answers again its bucket is charged with what the instances admitted alone (at most a
 * capacity per instance), so it does not come back with a burst saved by the outage.
 * Fallback only (Redis never seen): each instance admits at most its share, the cluster at most
 * {@code N × share}: a bucket's capacity and rate (plus the floors: up to {@code N × cost} of burst
 * where {@code capacity / N < cost}), a quota's {@code quota} per window (plus up to
 * {@code N × cost} where {@code quota / N < cost}); uneven traffic admits less (an instance cannot
 * borrow an idle one's share); a stale N admits up to {@code trueN / N} times.
 *
 * <p>Memory: a state is kept only while it matters, until the bucket would be full again or the
 * quota's window ends; {@link #evictExpired()} drops the others (a missing state is a full bucket or
 * an unused quota, so no decision changes), as {@code LocalFallbackLimiter.evictFullBuckets} does.
 * A quota state dropped at its window's end is not there to stop a reopening if this clock later
 * steps back into that window.
 *
 * <p>Thread-safe: a request's limits are all of one tenant, and each tenant's states are decided
 * under one of {@value #STRIPES} locks.
 */
public final class LocalMultiLimitStore {

    static final int STRIPES = 64;

    private final Stripe[] stripes = new Stripe[STRIPES];
    private final IntSupplier instanceCount;
    private final WallClock clock;

    /** The states of the tenants whose name hashes to one stripe, and when each stops mattering. */
    private static final class Stripe {
        private final ReferenceLimitEvaluator states = new ReferenceLimitEvaluator();
        private final Map<LimitKey, Long> expiries = new HashMap<>();
        /** What this store admitted on its own per limit, owed to Redis: {units, window start or -1}. */
        private final Map<LimitKey, long[]> owed = new HashMap<>();
    }

    /** Keys with something owed to Redis, over all stripes: 0 on the usual path, so no map is read. */
    private final AtomicInteger owedKeys = new AtomicInteger();

    /**
     * @param instanceCount N, the live gateway instances (at least 1 is used)
     * @param clock         the time of day, epoch ms
     */
    public LocalMultiLimitStore(IntSupplier instanceCount, WallClock clock) {
        this.instanceCount = Objects.requireNonNull(instanceCount, "instanceCount");
        this.clock = Objects.requireNonNull(clock, "clock");
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    /** Decides one request's {@code charges} (all of one tenant, at least one) on this instance's shares. */
    public MultiLimitDecision decide(List<LimitCharge> charges) {
        if (charges.isEmpty()) {
            throw new IllegalArgumentException("a request is charged to one limit at least");
        }
        String tenant = charges.get(0).key().tenant();
        for (int i = 1; i < charges.size(); i++) {
            if (!charges.get(i).key().tenant().equals(tenant)) {
                throw new IllegalArgumentException("one request's limits are one tenant's: " + tenant + " and "
                        + charges.get(i).key().tenant());
            }
        }
        int instances = Math.max(1, instanceCount.getAsInt());
        Stripe stripe = stripeOf(tenant);
        synchronized (stripe) {
            long now = clock.currentTimeMillis();
            MultiLimitDecision decision = stripe.states.decide(charges, now, instances);
            if (decision.admitted()) {
                // Every state was written: each matters until its bucket is full or its window ends.
                for (LimitOutcome outcome : decision.outcomes()) {
                    stripe.expiries.put(outcome.charge().key(), now + outcome.resetAfterMillis());
                    if (outcome.admits()) {
                        owe(stripe, outcome);
                    }
                }
            }
            return decision;
        }
    }

    /** Adds an admission made here alone to what the limit owes Redis: a quota's in its window, a bucket's up to a capacity. */
    private void owe(Stripe stripe, LimitOutcome outcome) {
        LimitCharge charge = outcome.charge();
        long window = outcome.window() == null ? -1 : outcome.window().startMillis();
        long[] owed = stripe.owed.get(charge.key());
        if (owed == null) {
            stripe.owed.put(charge.key(), new long[] {charge.cost(), window});
            owedKeys.incrementAndGet();
        } else if (owed[1] != window) {
            owed[0] = charge.cost(); // a new window: what the last one owed no longer counts
            owed[1] = window;
        } else {
            owed[0] = Math.min(owed[0] + charge.cost(), charge.limit().allowance().maxCost());
        }
    }

    /**
     * Whether this store holds admissions it made alone that Redis has not been charged with yet (one
     * atomic read). While it does, the multi-limit path decides one request per Redis call, no lease:
     * a lease fetched then would pre-admit several requests from a count that lacks this instance's
     * own, and the charge that follows, capped at what Redis reports left, could not take them back.
     */
    public boolean owesRedis() {
        return owedKeys.get() > 0;
    }

    /**
     * Brings this instance's share of each limit of {@code redis} (a decision Redis made, of one
     * request) in line with it (see the class comment), and returns what this store admitted on its
     * own for those limits since, as charges to make on Redis: shadow charges of the same limits (the
     * same states), each at most what Redis reported left; empty (no allocation) when nothing is owed,
     * the usual case. What is returned is no longer owed here, whether or not the charge succeeds.
     */
    public List<LimitCharge> followRedis(MultiLimitDecision redis) {
        List<LimitOutcome> outcomes = redis.outcomes();
        if (outcomes.isEmpty()) {
            return List.of();
        }
        int instances = Math.max(1, instanceCount.getAsInt());
        Stripe stripe = stripeOf(outcomes.get(0).charge().key().tenant());
        List<LimitCharge> chargeBack = List.of();
        synchronized (stripe) {
            long now = clock.currentTimeMillis();
            for (LimitOutcome outcome : outcomes) {
                long charged = 0;
                if (owedKeys.get() > 0) {
                    LimitCharge owed = takeOwed(stripe, outcome);
                    if (owed != null) {
                        if (chargeBack.isEmpty()) {
                            chargeBack = new ArrayList<>(outcomes.size());
                        }
                        chargeBack.add(owed);
                        charged = owed.cost();
                    }
                }
                long left = Math.max(0, outcome.remaining() - charged);
                if (outcome.limitDefinition().allowance() instanceof TokenBucket bucket) {
                    followBucket(stripe, outcome, bucket, redis.admitted() && outcome.admits(), left, instances, now);
                } else {
                    followQuota(stripe, outcome, (CalendarQuota) outcome.limitDefinition().allowance(), left,
                            instances, now);
                }
            }
        }
        return chargeBack;
    }

    /** What {@code outcome}'s limit owes Redis as a shadow charge that fits what Redis reported left, or null. */
    private LimitCharge takeOwed(Stripe stripe, LimitOutcome outcome) {
        LimitKey key = outcome.charge().key();
        long[] owed = stripe.owed.remove(key);
        if (owed == null) {
            return null;
        }
        owedKeys.decrementAndGet();
        long window = outcome.window() == null ? -1 : outcome.window().startMillis();
        long units = Math.min(owed[0], outcome.remaining());
        if (owed[1] != window || units < 1) {
            return null; // admitted in another window than Redis counts in now, or Redis has nothing left
        }
        return new LimitCharge(key, outcome.limitDefinition().shadow(true), units);
    }

    private void followBucket(Stripe stripe, LimitOutcome outcome, TokenBucket bucket, boolean charged,
                              long redisLeft, int instances, long now) {
        LimitKey key = outcome.charge().key();
        BucketLimits share = bucket.limits(outcome.charge().cost()).dividedAmong(instances);
        long capacity = share.capacityMicros();
        long tokens = capacity;
        long ts = now;
        LimitState state = stripe.states.state(key);
        if (state instanceof LimitState.Bucket stored) {
            tokens = Math.min(stored.tokens(), capacity);
            ts = Math.min(stored.tsMillis(), now + share.millisToFill());
        }
        if (now > ts) {
            tokens = TokenBucketMath.refill(tokens, now - ts, share);
            ts = now;
        }
        long after = charged ? Math.max(0, tokens - share.costMicros()) : tokens;
        // Redis's whole tokens left ÷ N, in micro-tokens: ≤ 2^53 / N, no overflow.
        after = Math.min(after, Math.multiplyExact(redisLeft, BucketLimits.MICROS_PER_TOKEN) / instances);
        if (after == tokens && after == capacity && state == null) {
            return; // a full bucket stays a missing state
        }
        stripe.states.put(key, new LimitState.Bucket(after, ts));
        stripe.expiries.put(key, ts + TokenBucketMath.millisUntil(after, capacity, share));
    }

    private void followQuota(Stripe stripe, LimitOutcome outcome, CalendarQuota quota, long redisLeft,
                             int instances, long now) {
        CalendarWindow window = outcome.window();
        if (window == null) {
            return;
        }
        LimitKey key = outcome.charge().key();
        long allowed = ReferenceLimitEvaluator.quotaShare(quota.quota(), outcome.charge().cost(), instances);
        long used = 0;
        LimitState state = stripe.states.state(key);
        if (state instanceof LimitState.Quota stored) {
            // Within the window Redis counts in (the usual case) no calendar arithmetic is needed.
            long storedStart = stored.windowStartMillis() >= window.startMillis()
                    && stored.windowStartMillis() < window.endMillis()
                    ? window.startMillis() : quota.windowAt(stored.windowStartMillis()).startMillis();
            if (storedStart > window.startMillis()) {
                return; // this clock already counts in a later window than Redis's: nothing to follow
            }
            if (storedStart == window.startMillis()) {
                used = stored.used();
            }
        }
        long target = Math.min(allowed, Math.max(used, allowed - redisLeft / instances));
        if (target == used && used == 0) {
            return; // nothing used: a missing state says as much
        }
        if (target != used || !(state instanceof LimitState.Quota q
                && q.windowStartMillis() == window.startMillis())) {
            stripe.states.put(key, new LimitState.Quota(window.startMillis(), target));
            stripe.expiries.put(key, Math.max(now, window.endMillis()));
        }
    }

    /** Drops every state that no longer matters (bucket full again, quota window over); returns how many. */
    public int evictExpired() {
        int evicted = 0;
        for (Stripe stripe : stripes) {
            synchronized (stripe) {
                long now = clock.currentTimeMillis();
                Iterator<Map.Entry<LimitKey, Long>> it = stripe.expiries.entrySet().iterator();
                while (it.hasNext()) {
                    Map.Entry<LimitKey, Long> entry = it.next();
                    if (entry.getValue() <= now) {
                        stripe.states.forget(entry.getKey());
                        if (stripe.owed.remove(entry.getKey()) != null) {
                            owedKeys.decrementAndGet(); // a full bucket or a window over: nothing left to charge
                        }
                        it.remove();
                        evicted++;
                    }
                }
            }
        }
        return evicted;
    }

    /** The state kept for {@code key}, {@code null} if none (a full bucket, an unused quota). */
    public LimitState state(LimitKey key) {
        Stripe stripe = stripeOf(key.tenant());
        synchronized (stripe) {
            return stripe.states.state(key);
        }
    }

    /** States kept. */
    public int size() {
        int size = 0;
        for (Stripe stripe : stripes) {
            synchronized (stripe) {
                size += stripe.states.size();
            }
        }
        return size;
    }

    private Stripe stripeOf(String tenant) {
        int h = tenant.hashCode();
        return stripes[(h ^ (h >>> 16)) & (STRIPES - 1)];
    }
}
