package dev.tollgate.core.limits;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.TokenBucketMath;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The exact reference model of a decision over several limits, kept in a map: what the multi-limit
 * Redis script and the local stores are to be checked against, one request at a time, on a time the
 * caller passes (epoch ms on the deciding clock: Redis's {@code TIME} for the script). Not thread-safe,
 * not meant for production traffic: it is written to be obviously right, not fast.
 *
 * <p>One request is decided thus, every limit on the same instant {@code now}:
 * <ol>
 *   <li>Each charge, in the request's order, is read from the state as the charges before it in this
 *       request left it (a key charged twice sees the first charge's take) and brought to {@code now}:
 *       <ul>
 *         <li><b>token bucket</b>, as {@code bucket_refill.lua} does: a missing state is full; tokens
 *             above the capacity (lowered since) are cut to it; a stored time more than one fill time
 *             ahead of {@code now} is taken as one fill time ahead; if {@code now} is after the stored
 *             time the bucket refills by {@link TokenBucketMath#refill} and the time becomes
 *             {@code now}, otherwise nothing refills and the stored time stays (Redis's clock stepped
 *             back: a step back never mints tokens). It has room if the cost, in micro-tokens, is at
 *             most the tokens. Waits (retry, reset) count from the time that is written if the
 *             request is admitted; if it is rejected nothing is written, so they count from the
 *             stored time: after a step back of more than one fill time the wait is then until
 *             Redis's clock passes the stored time (today's {@code token_bucket.lua} reports one fill
 *             time there, too short: a retry at that time is rejected again);</li>
 *         <li><b>calendar quota</b>: the window is the one holding {@code now}, except that a stored
 *             count for a later window (the clock stepped back) keeps counting in that later window, so
 *             a step back never reopens a spent window; a count for an earlier window is dropped. It
 *             has room if count + cost is at most the quota.</li>
 *       </ul></li>
 *   <li>The request is admitted if and only if every enforced (non-shadow) limit has room.</li>
 *   <li>Admitted: every limit's state is written, brought to {@code now} and less the cost where the
 *       limit had room (a shadow limit without room is written uncharged: it never goes below zero).
 *       Rejected: nothing is written, to any limit, and each outcome reports the limit as it stood
 *       (for a key charged twice in one request, as the earlier charge would have left it).</li>
 * </ol>
 * A state of the other kind (a limit that changed from a bucket to a quota under the same name) counts
 * as missing. All arithmetic is on longs, far below 2<sup>53</sup> (see {@link BucketLimits}, {@link CalendarQuota#MAX_QUOTA}).
 */
public final class ReferenceLimitEvaluator {

    /**
     * Where a quota's windows lie: the calendar's ({@link CalendarQuota#windowAt}) unless a test says
     * otherwise (the Redis script is generic over the window tables it is sent, so its differential
     * test drives it with short synthetic windows, and the reference must count in the same ones).
     */
    @FunctionalInterface
    public interface QuotaWindows {
        /** The window of {@code quota} that holds {@code epochMillis}. */
        CalendarWindow windowAt(CalendarQuota quota, long epochMillis);
    }

    private final Map<LimitKey, LimitState> states = new HashMap<>();
    private final QuotaWindows windows;

    /** An evaluator whose quotas count in calendar windows. */
    public ReferenceLimitEvaluator() {
        this(CalendarQuota::windowAt);
    }

    /** An evaluator whose quotas count in the windows {@code windows} gives (a test's). */
    public ReferenceLimitEvaluator(QuotaWindows windows) {
        this.windows = java.util.Objects.requireNonNull(windows, "windows");
    }

    /** Decides {@code charges} (one request's limits) at {@code nowMillis}, and records what it takes. */
    public MultiLimitDecision decide(List<LimitCharge> charges, long nowMillis) {
        return decide(charges, nowMillis, 1);
    }

    /**
     * As {@link #decide(List, long)}, on one instance's share of every limit when they are split
     * evenly among {@code instances} ({@link LocalMultiLimitStore}): a token bucket's capacity and
     * rate as {@link BucketLimits#dividedAmong} gives them, a quota {@link #quotaShare divided} per
     * window. With 1, every limit whole: the reference.
     */
    MultiLimitDecision decide(List<LimitCharge> charges, long nowMillis, int instances) {
        Map<LimitKey, LimitState> written = new HashMap<>();
        List<Step> steps = new ArrayList<>(charges.size());
        boolean admitted = true;
        for (LimitCharge charge : charges) {
            LimitState before = written.containsKey(charge.key()) ? written.get(charge.key()) : states.get(charge.key());
            Step step = charge.limit().allowance() instanceof TokenBucket bucket
                    ? bucketStep(charge, bucket.limits(charge.cost()).dividedAmong(instances), before, nowMillis)
                    : quotaStep(charge, (CalendarQuota) charge.limit().allowance(), instances, before, nowMillis,
                            windows);
            written.put(charge.key(), step.after);
            steps.add(step);
            admitted &= step.hasRoom || charge.limit().shadow();
        }
        if (admitted) {
            states.putAll(written);
        }
        List<LimitOutcome> outcomes = new ArrayList<>(steps.size());
        for (Step step : steps) {
            outcomes.add(admitted ? step.charged : step.uncharged);
        }
        return new MultiLimitDecision(admitted, outcomes);
    }

    /** The state of {@code key}, {@code null} if none is kept (a full bucket, an unused quota). */
    public LimitState state(LimitKey key) {
        return states.get(key);
    }

    /** A copy of every state kept. */
    public Map<LimitKey, LimitState> states() {
        return Map.copyOf(states);
    }

    /** Sets the state of {@code key} (a test's starting point, or a state read from elsewhere). */
    public void put(LimitKey key, LimitState state) {
        states.put(key, state);
    }

    /** Drops the state of {@code key}: from then on it is missing (a full bucket, an unused quota). */
    void forget(LimitKey key) {
        states.remove(key);
    }

    /** How many states are kept. */
    int size() {
        return states.size();
    }

    /**
     * One instance's share of a quota split among {@code instances}: {@code floor(quota / instances)},
     * raised to {@code cost} where that is less (a share that cannot hold one request would reject it
     * for the whole window), never above the quota.
     */
    static long quotaShare(long quota, long cost, int instances) {
        if (instances <= 1) {
            return quota;
        }
        return Math.min(quota, Math.max(quota / instances, cost));
    }

    /**
     * One charge worked out both ways: its outcome if the request is admitted ({@code charged}) or
     * rejected ({@code uncharged}), and the state to write if admitted.
     */
    private record Step(boolean hasRoom, LimitState after, LimitOutcome charged, LimitOutcome uncharged) {
    }

    private static Step bucketStep(LimitCharge charge, BucketLimits limits, LimitState before, long now) {
        long capacity = limits.capacityMicros();
        long fillMillis = limits.millisToFill();
        long tokens = capacity;
        long storedTs = now;
        if (before instanceof LimitState.Bucket stored) { // anything else: a full bucket
            tokens = Math.min(stored.tokens(), capacity);
            storedTs = stored.tsMillis();
        }
        long ts = Math.min(storedTs, now + fillMillis);
        if (now > ts) {
            tokens = TokenBucketMath.refill(tokens, now - ts, limits);
            ts = now;
        }
        long cost = limits.costMicros();
        boolean hasRoom = cost <= tokens;
        long takenTo = hasRoom ? tokens - cost : tokens;
        LimitState after = new LimitState.Bucket(takenTo, ts);
        // Waits are counted from the time the bucket will hold: the one written (ts) if the request
        // is admitted; the stored one if not, since nothing is written and, until Redis's clock
        // passes it, nothing refills.
        return new Step(hasRoom, after,
                LimitOutcome.ofBucket(charge, hasRoom, takenTo, ts - now, limits),
                LimitOutcome.ofBucket(charge, hasRoom, tokens, Math.max(storedTs, now) - now, limits));
    }


    private static Step quotaStep(LimitCharge charge, CalendarQuota quota, int instances, LimitState before,
                                  long now, QuotaWindows windows) {
        long allowed = quotaShare(quota.quota(), charge.cost(), instances);
        CalendarWindow window = windows.windowAt(quota, now);
        long used = 0;
        if (before instanceof LimitState.Quota stored) {
            // Computed under the quota as it is now: a count written under another period or zone
            // counts in the window that holds its start.
            CalendarWindow storedWindow = windows.windowAt(quota, stored.windowStartMillis());
            if (storedWindow.startMillis() >= window.startMillis()) {
                window = storedWindow; // the same window, or a later one: the clock stepped back
                used = stored.used();
            }
        }
        long cost = charge.cost();
        boolean hasRoom = cost <= allowed - used;
        long usedAfter = hasRoom ? used + cost : used;
        LimitState after = new LimitState.Quota(window.startMillis(), usedAfter);
        return new Step(hasRoom, after,
                LimitOutcome.ofQuota(charge, hasRoom, usedAfter, quota, allowed, window, now),
                LimitOutcome.ofQuota(charge, hasRoom, used, quota, allowed, window, now));
    }

}
