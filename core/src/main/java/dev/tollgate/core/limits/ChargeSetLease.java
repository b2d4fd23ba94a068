package dev.tollgate.core.limits;

import dev.tollgate.core.Decision;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.RequestRateMeter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What one instance knows of one charge set (a request's exact list of limits) for
 * {@link MultiLimitLeases}: its request rate, the requests it holds pre-admitted on lease, and the
 * rejection of the last short grant. Every method is synchronized: one charge set's requests are
 * serialised here, for nanoseconds, never across a Redis call. The single-bucket path's
 * {@code KeyLease} with requests instead of tokens: a multi-limit lease holds whole requests, each
 * charged to every limit of the set.
 */
final class ChargeSetLease {

    /** Gives unspent requests back to the shared states (asynchronously; never calls back in). */
    interface GiveBack {
        void giveBack(MultiLimitLeaseSource.Grant grant, List<MultiLimitDecision> unspent);
    }

    sealed interface Step {
    }

    /** Answered here, without a remote call. */
    record Decided(MultiLimitDecision decision) implements Step {
    }

    /** Not leased (cold): one remote call for this request. */
    record PerRequest() implements Step {
    }

    /** This request fetches a lease of {@code requests}; it must report the outcome. */
    record Fetch(int requests, long startedAtMillis, CompletableFuture<Void> done) implements Step {
    }

    /** Another request is fetching: wait for it, then call {@link #afterWait}. */
    record Wait(CompletableFuture<Void> fetch) implements Step {
    }

    /** This state was swept away: look the charge set up again. */
    record Retry() implements Step {
    }

    static final PerRequest PER_REQUEST = new PerRequest();
    static final Retry RETRY = new Retry();

    private final RequestRateMeter meter;
    private final long ttlMillis;
    /** {@code B}: the most requests one lease of this set holds; 0: never leased. */
    private final int maxRequests;
    private boolean hot;
    private boolean retired;
    private long lastUsedMillis;

    /** The grant the held requests come from; null before the first. */
    private MultiLimitLeaseSource.Grant grant;
    /**
     * Pre-admitted requests not yet spent, in the order the script admitted them. Small to start with:
     * every charge set seen gets one of these, most never leased.
     */
    private final ArrayDeque<MultiLimitDecision> held = new ArrayDeque<>(1);
    private long grantedAtMillis;
    /** Held requests are given back from this instant on: the TTL, or the end of a quota's window. */
    private long expiresAtMillis;
    /** After a short grant: its rejection, when it came, and no fetch before the rejection's retry. */
    private MultiLimitDecision rejection;
    private long rejectedAtMillis;
    private long noFetchBeforeMillis = Long.MIN_VALUE;
    private CompletableFuture<Void> fetching;
    private boolean lastFetchSucceeded;

    ChargeSetLease(long nowMillis, long ttlMillis, int maxRequests) {
        this.meter = new RequestRateMeter(nowMillis);
        this.ttlMillis = ttlMillis;
        this.maxRequests = maxRequests;
        this.lastUsedMillis = nowMillis;
    }

    synchronized Step onRequest(long now, LeasePolicy policy, GiveBack giveBack) {
        if (retired) {
            return RETRY;
        }
        if (maxRequests == 0) {
            return PER_REQUEST; // forgotten by the sweep 2 s after it was made, like any idle set
        }
        meter.record(now);
        lastUsedMillis = now;
        settle(now, giveBack);
        if (!held.isEmpty()) {
            return new Decided(take(now));
        }
        double rate = meter.perSecond(now);
        hot = policy.isHot(hot, rate); // with hysteresis, see there
        if (!hot) {
            return PER_REQUEST;
        }
        return fetchOrWait(rate, now, policy);
    }

    /** Joins the fetch on its way, rejects while a short grant's limits refill, or fetches. */
    private Step fetchOrWait(double rate, long now, LeasePolicy policy) {
        if (fetching != null) {
            return new Wait(fetching);
        }
        if (now < noFetchBeforeMillis) {
            return new Decided(rejectedHere(now));
        }
        fetching = new CompletableFuture<>();
        return new Fetch(requests(rate, policy, maxRequests), now, fetching);
    }

    /** Requests for {@link LeasePolicy#leaseMillis()} at {@code rate}: 1 to {@code maxRequests}. */
    static int requests(double rate, LeasePolicy policy, int maxRequests) {
        double wanted = Math.ceil(rate * policy.leaseMillis() / 1000d);
        return (int) Math.max(1, Math.min(wanted, maxRequests));
    }

    /**
     * The outcome of this request's fetch: the admitted requests become the lease, and this request
     * gets the first of them, or the rejection. The lease ends at the TTL or at the end of the earliest
     * quota window it was counted in, whichever comes first, both counted from when the fetch was sent
     * (before Redis read its clock), so never later than the window's end.
     */
    synchronized MultiLimitDecision onGrant(MultiLimitLeaseSource.Grant granted, long startedAtMillis, long now,
                                            GiveBack giveBack) {
        fetching = null;
        lastFetchSucceeded = true;
        settle(now, giveBack);
        if (!granted.admitted().isEmpty()) {
            if (!held.isEmpty()) {
                // Cannot happen (a fetch starts only with nothing held); were it to, nothing is lost.
                giveBack.giveBack(grant, List.copyOf(held));
                held.clear();
            }
            grant = granted;
            held.addAll(granted.admitted());
            grantedAtMillis = now;
            expiresAtMillis = startedAtMillis + ttlMillis;
            for (MultiLimitDecision admitted : granted.admitted()) {
                for (LimitOutcome outcome : admitted.outcomes()) {
                    if (outcome.window() != null) {
                        long end = startedAtMillis + (outcome.window().endMillis() - granted.nowMillis());
                        expiresAtMillis = Math.min(expiresAtMillis, end);
                    }
                }
            }
        }
        rejection = granted.rejection();
        long retry = rejection == null ? Decision.NEVER : rejection.retryAfterMillis();
        // A short grant: asking again before the rejecting limits have room would cost one call per
        // request, what leasing avoids. Counted from the send, so never later than the limits admit.
        noFetchBeforeMillis = retry == Decision.NEVER ? Long.MIN_VALUE : startedAtMillis + retry;
        rejectedAtMillis = now;
        if (!held.isEmpty()) {
            return take(now);
        }
        return rejection;
    }

    synchronized void onFetchFailed() {
        fetching = null;
        lastFetchSucceeded = false;
    }

    /** A request that waited for another's fetch: served from the lease, rejected here, or per request. */
    synchronized Step afterWait(long now, LeasePolicy policy, GiveBack giveBack) {
        if (retired) {
            return RETRY;
        }
        settle(now, giveBack);
        if (!held.isEmpty()) {
            return new Decided(take(now));
        }
        // The batch ran out before every waiter was served (the fetch took longer than a batch lasts at
        // this rate): one more fetch serves the rest, instead of one call each. Not after a failed fetch:
        // then each waiter makes its own call (which fails fast while Redis is gone).
        if (hot && lastFetchSucceeded) {
            return fetchOrWait(meter.perSecond(now), now, policy);
        }
        return PER_REQUEST;
    }

    /** Gives back expired requests; retires this state when it holds nothing and went unused for 2 s. */
    synchronized boolean sweep(long now, GiveBack giveBack) {
        settle(now, giveBack);
        if (held.isEmpty() && fetching == null && now - lastUsedMillis >= 2 * RequestRateMeter.WINDOW_MILLIS) {
            retired = true;
        }
        return retired;
    }

    /** Gives back every unspent request (on close). */
    synchronized void release(GiveBack giveBack) {
        if (!held.isEmpty()) {
            giveBack.giveBack(grant, List.copyOf(held));
            held.clear();
        }
    }

    synchronized int heldRequests() {
        return held.size();
    }

    private void settle(long now, GiveBack giveBack) {
        if (!held.isEmpty() && now >= expiresAtMillis) {
            giveBack.giveBack(grant, List.copyOf(held));
            held.clear();
        }
    }

    private MultiLimitDecision take(long now) {
        return aged(held.poll(), now - grantedAtMillis);
    }

    private MultiLimitDecision rejectedHere(long now) {
        return aged(rejection, now - rejectedAtMillis);
    }

    /**
     * A decision made {@code age} ms ago, as of now: its waits shortened by the age (never below 0);
     * what it says is left is as of then (see {@link MultiLimitLeases} for the bound).
     */
    private static MultiLimitDecision aged(MultiLimitDecision decision, long age) {
        if (age <= 0) {
            return decision;
        }
        List<LimitOutcome> outcomes = new ArrayList<>(decision.outcomes().size());
        for (LimitOutcome o : decision.outcomes()) {
            long retry = o.retryAfterMillis() == Decision.NEVER ? Decision.NEVER : Math.max(0, o.retryAfterMillis() - age);
            outcomes.add(new LimitOutcome(o.charge(), o.admits(), o.remaining(), o.limit(), o.requestsLeft(), retry,
                    Math.max(0, o.resetAfterMillis() - age), o.window()));
        }
        return new MultiLimitDecision(decision.admitted(), outcomes);
    }
}
