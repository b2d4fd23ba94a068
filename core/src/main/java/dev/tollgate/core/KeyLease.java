package dev.tollgate.core;

import java.util.concurrent.CompletableFuture;

/**
 * What one instance knows of one key for {@link LeasingBucketStore}: its request rate, the tokens
 * it holds on lease, and the bucket's state as of the last grant. Every method is synchronized: one
 * key's requests are serialised here, for nanoseconds, never across a Redis call.
 */
final class KeyLease {

    /** Gives unspent tokens back to the shared bucket (asynchronously; never calls back in). */
    interface GiveBack {
        void giveBack(BucketLimits limits, long micros);
    }

    /** What the store must do next for a request. */
    sealed interface Step {
    }

    /** Answered here, without a remote call. */
    record Decided(Decision decision) implements Step {
    }

    /** Not leased (cold, or the bucket too small for a batch): one remote call for this request. */
    record PerRequest() implements Step {
    }

    /** This request fetches a lease of {@code batchMicros}; it must report the outcome. */
    record Fetch(long batchMicros, CompletableFuture<Void> done) implements Step {
    }

    /** Another request is fetching a lease: wait for it, then call {@link #afterWait}. */
    record Wait(CompletableFuture<Void> fetch) implements Step {
    }

    /** This state was swept away: look the key up again. */
    record Retry() implements Step {
    }

    private static final PerRequest PER_REQUEST = new PerRequest();
    private static final Retry RETRY = new Retry();

    private final RequestRateMeter meter;
    private final long ttlMillis;
    private boolean hot;
    private boolean retired;
    private long lastUsedMillis;

    /** Limits of the last grant; null before the first. */
    private BucketLimits limits;
    private long localMicros;
    private long expiresAtMillis;
    /** The shared bucket's tokens right after the last grant, and when that was. */
    private long sharedMicros;
    private long sharedAtMillis;
    /** After a short grant, no new fetch before this; requests are rejected here meanwhile. */
    private long noFetchBeforeMillis = Long.MIN_VALUE;
    private CompletableFuture<Void> fetching;
    private boolean lastFetchSucceeded;

    KeyLease(long nowMillis, long ttlMillis) {
        this.meter = new RequestRateMeter(nowMillis);
        this.ttlMillis = ttlMillis;
        this.lastUsedMillis = nowMillis;
    }

    synchronized Step onRequest(BucketLimits current, long now, LeasePolicy policy, GiveBack giveBack) {
        if (retired) {
            return RETRY;
        }
        meter.record(now);
        lastUsedMillis = now;
        settle(current, now, giveBack);
        if (localMicros >= current.costMicros()) {
            return new Decided(take(now));
        }
        double rate = meter.perSecond(now);
        hot = policy.isHot(hot, rate); // with hysteresis, see there
        long batch = hot ? policy.batchMicros(rate, current) : 0;
        if (batch == 0) {
            return PER_REQUEST;
        }
        return fetchOrWait(batch, now);
    }

    /** Joins the fetch on its way, rejects while the bucket refills after a short grant, or fetches. */
    private Step fetchOrWait(long batch, long now) {
        if (fetching != null) {
            return new Wait(fetching);
        }
        if (now < noFetchBeforeMillis) {
            return new Decided(decide(false, now));
        }
        fetching = new CompletableFuture<>();
        return new Fetch(batch, fetching);
    }

    /** The outcome of this request's fetch: the grant is added to the lease, then the request decided. */
    synchronized Decision onGrant(LeaseGrant grant, BucketLimits current, long batch, long now, GiveBack giveBack) {
        fetching = null;
        lastFetchSucceeded = true;
        settle(current, now, giveBack);
        limits = current;
        localMicros += grant.grantedMicros();
        if (grant.grantedMicros() > 0) {
            expiresAtMillis = now + ttlMillis;
        }
        sharedMicros = grant.tokensLeftMicros();
        sharedAtMillis = now;
        // A short grant means the bucket is (nearly) empty: fetching again before it holds a batch
        // would cost one remote call per request, exactly what leasing is for avoiding.
        noFetchBeforeMillis = grant.grantedMicros() < batch ? now + grant.millisUntilRequested() : Long.MIN_VALUE;
        if (localMicros >= current.costMicros()) {
            return take(now);
        }
        return decide(false, now);
    }

    synchronized void onFetchFailed() {
        fetching = null;
        lastFetchSucceeded = false;
    }

    /** A request that waited for another's fetch: served from the lease, rejected here, or per request. */
    synchronized Step afterWait(BucketLimits current, long now, LeasePolicy policy, GiveBack giveBack) {
        if (retired) {
            return RETRY;
        }
        settle(current, now, giveBack);
        if (localMicros >= current.costMicros()) {
            return new Decided(take(now));
        }
        if (limits != null && now < noFetchBeforeMillis) {
            return new Decided(decide(false, now));
        }
        // The batch ran out before every waiter was served: the fetch took longer than a batch lasts
        // at this rate. One more fetch serves the rest, instead of one remote call each. Not after a
        // failed fetch: then each waiter makes its own call (which fails fast while Redis is gone).
        long batch = hot && lastFetchSucceeded ? policy.batchMicros(meter.perSecond(now), current) : 0;
        return batch > 0 ? fetchOrWait(batch, now) : PER_REQUEST;
    }

    /**
     * Gives back expired tokens; retires this state and returns true when it holds nothing worth
     * keeping (no tokens, no fetch, unused for two rate windows).
     */
    synchronized boolean sweep(long now, GiveBack giveBack) {
        if (limits != null) {
            settle(limits, now, giveBack);
        }
        if (localMicros == 0 && fetching == null && now - lastUsedMillis >= 2 * RequestRateMeter.WINDOW_MILLIS) {
            retired = true;
        }
        return retired;
    }

    /** Gives back every unspent token (on close). */
    synchronized void release(GiveBack giveBack) {
        if (localMicros > 0) {
            giveBack.giveBack(limits, localMicros);
            localMicros = 0;
        }
    }

    /** Tokens on lease go back when they expire or the limits change (new rule, new cost). */
    private void settle(BucketLimits current, long now, GiveBack giveBack) {
        if (limits == null) {
            return;
        }
        boolean changed = !limits.equals(current);
        if (localMicros > 0 && (changed || now >= expiresAtMillis)) {
            giveBack.giveBack(limits, localMicros);
            localMicros = 0;
        }
        if (changed) {
            limits = null;
            noFetchBeforeMillis = Long.MIN_VALUE;
        }
    }

    private Decision take(long now) {
        localMicros -= limits.costMicros();
        return decide(true, now);
    }

    /**
     * A decision from what this instance knows: its own lease plus the shared bucket as of the last
     * grant, refilled since. {@code remaining} overstates the truth by what other instances took since
     * that grant (at most their leases plus their per-request takes); see {@link LeasingBucketStore}.
     */
    private Decision decide(boolean allowed, long now) {
        long shared = TokenBucketMath.refill(sharedMicros, now - sharedAtMillis, limits);
        long total = Math.min(limits.capacityMicros(), shared + localMicros);
        long retry;
        if (localMicros >= limits.costMicros()) {
            retry = 0;
        } else if (now < noFetchBeforeMillis) {
            retry = noFetchBeforeMillis - now;
        } else {
            retry = TokenBucketMath.millisUntil(shared, limits.costMicros(), limits);
        }
        return new Decision(allowed, total / BucketLimits.MICROS_PER_TOKEN, limits.capacityTokens(), retry,
                TokenBucketMath.millisUntil(total, limits.capacityMicros(), limits));
    }
}
