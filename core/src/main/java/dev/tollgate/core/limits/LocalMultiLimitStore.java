package dev.tollgate.core.limits;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.WallClock;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * <p>Error bound, with N right and traffic spread evenly: each instance admits at most its share, so
 * the cluster admits at most {@code N × share}: a bucket's capacity and rate (plus the floors: up to
 * {@code N × cost} of burst where {@code capacity / N < cost}), a quota's {@code quota} per window
 * (plus up to {@code N × cost} where {@code quota / N < cost}). Uneven traffic admits less (an
 * instance cannot borrow an idle one's share); a stale N admits up to {@code trueN / N} times.
 * What Redis admitted before it failed is <b>not</b> known here: admissions Redis decides are not
 * mirrored in this store (it would cost a local decision on every request of the hot path), and what
 * this store admits is not charged to Redis afterwards. So in the window during which Redis fails the
 * cluster may admit up to the whole quota again on top of what Redis had counted. Worked example: a
 * day quota of 10,000 on 4 instances, Redis down from 14:00 to 15:00 after 6,000 were admitted that
 * day: during the hour each instance admits up to 2,500 (10,000 in all), then rejects until
 * midnight or until Redis answers; back on Redis the day's count is still 6,000, so up to 4,000
 * more pass before midnight: at most 20,000 that day, twice the quota; never more than twice the
 * quota in a window (plus the floors), however many outages it holds, since each instance's share
 * of a window is spent once. Buckets are bounded as today's fallback: at most one extra capacity per
 * switch to the fallback.
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
    }

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
                }
            }
            return decision;
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
