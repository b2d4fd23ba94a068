package dev.tollgate.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * Token leases for hot keys ({@code docs/hot-keys-and-cluster.md}): a {@link BucketStore} that, for a key this instance sees
 * at {@link LeasePolicy#hotRequestsPerSecond()} or more, takes a batch of tokens from the shared
 * bucket in one call ({@link TokenLeaseSource#takeUpTo}) and spends them in memory; cold keys keep one
 * call per request to the store it decorates. The batch is sized to last
 * {@link LeasePolicy#leaseMillis()} at the key's observed rate, and is never above
 * {@code B = }{@link LeasePolicy#maxBatchMicros(BucketLimits)} (at most {@code maxBatchTokens} and at
 * most {@code maxCapacityShare} of the capacity). A grant may be partial (what the bucket holds, in
 * whole requests); after a short grant this instance does not ask again until the bucket should hold
 * a batch, and rejects meanwhile, so an over-limit hot key costs about one call per batch too.
 * Requests that arrive while a fetch is on its way wait for it; if its batch runs out before all of
 * them are served (a round trip longer than a batch lasts), the rest share one more fetch, so a slow
 * Redis costs more waiting, not more calls.
 *
 * <p><b>Bounds</b>, for one key with capacity {@code C} and rate {@code R}, served by {@code N}
 * instances:
 * <ul>
 *   <li>Tokens are only ever spent after being taken from the shared bucket, and tokens given back
 *       never raise it above {@code C}, so from the first request on, the cluster admits at most
 *       {@code C + R × T} over any {@code T}: no more than without leases.</li>
 *   <li>Each instance holds at most {@code B} leased tokens, so in any window of length {@code w}
 *       the cluster admits at most {@code C + R × w + N × B}: a burst may exceed the bucket's by the
 *       tokens leased before the window, {@code N × B} at most. With the defaults (50 tokens,
 *       a tenth of the capacity) and 20 instances that is {@code min(1000, 2 × C)} tokens.</li>
 *   <li>Under-admission: tokens leased by one instance are not available to another until spent or
 *       given back, so a request may be rejected while up to {@code (N − 1) × B} tokens sit in other
 *       instances' leases, for at most {@link LeasePolicy#leaseTtlMillis()}; after a short grant an
 *       instance rejects for at most the time the bucket takes to refill one batch
 *       ({@code B / R}) while up to {@code B} tokens gather in the shared bucket.</li>
 * </ul>
 *
 * <p><b>Unspent tokens are given back</b> ({@link TokenLeaseSource#giveBack}, capped at capacity):
 * when they have been held {@link LeasePolicy#leaseTtlMillis()} (checked on the key's next request
 * and by {@link #returnExpiredLeases()}, which also runs from {@code tryAcquire} once per TTL), when
 * the key's limits change, and on {@link #close()}. Tokens of an instance that dies, or whose give-back
 * fails, are lost: the cluster under-admits by at most {@code B} per such event.
 *
 * <p><b>Across a rule change</b> the bounds hold with the limits in force: a give-back adds the
 * returned tokens to the shared bucket as last written and refills nothing, so whichever rule each
 * instance is on, it raises what later requests see by exactly the tokens returned (never above their
 * capacity), and the bucket only ever refills at the rate of a request that reads it. Tokens leased
 * under the old rule are given back with the old grant's limits, of which only the capacity is used,
 * as the cap: where the new rule's capacity is higher, a give-back never lifts the bucket above the
 * old one (under-admission by at most {@code B}, once per instance and change).
 *
 * <p><b>Decisions served from a lease</b> report what this instance knows: {@code remaining} is its
 * lease plus the shared bucket as of its last grant, refilled since (it overstates by what other
 * instances took since then, at most their leases and per-request takes); {@code retryAfterMillis} is
 * 0 while the lease covers another request, else the time until this instance will ask again or the
 * shared bucket should hold a request's cost.
 */
public final class LeasingBucketStore implements BucketStore, AutoCloseable {

    private final BucketStore perRequest;
    private final TokenLeaseSource source;
    private final LeasePolicy policy;
    private final MonotonicClock clock;
    private final LeaseTable<BucketKey, KeyLease> leases;
    private final LongAdder perRequestCalls = new LongAdder();
    private final LongAdder leaseCalls = new LongAdder();
    private final LongAdder giveBackCalls = new LongAdder();
    private final LongAdder localDecisions = new LongAdder();

    /**
     * @param perRequest the store for cold keys (one call per request)
     * @param source     where leases come from: the same buckets as {@code perRequest}'s
     */
    public LeasingBucketStore(BucketStore perRequest, TokenLeaseSource source, LeasePolicy policy,
                              MonotonicClock clock) {
        this.perRequest = perRequest;
        this.source = source;
        this.policy = policy;
        this.clock = clock;
        this.leases = new LeaseTable<>(clock, policy.leaseTtlMillis(),
                (key, lease, now) -> lease.sweep(now, giver(key)),
                (key, lease, sent) -> lease.release((limits, micros) -> {
                    giveBackCalls.increment();
                    sent.accept(source.giveBack(key, limits, micros));
                }));
    }

    @Override
    public CompletionStage<Decision> tryAcquire(BucketKey key, BucketLimits limits) {
        if (!limits.costFits()) {
            return callPerRequest(key, limits); // it answers "never" without leasing anything
        }
        long now = clock.millis();
        leases.sweepIfDue(now);
        while (true) {
            KeyLease lease = leases.computeIfAbsent(key, k -> new KeyLease(now, policy.leaseTtlMillis()));
            KeyLease.Step step = lease.onRequest(limits, now, policy, giver(key));
            if (!(step instanceof KeyLease.Retry)) {
                return perform(step, lease, key, limits);
            }
            leases.remove(key, lease); // swept meanwhile: its sweeper removes it too, whoever is first
        }
    }

    private CompletionStage<Decision> perform(KeyLease.Step step, KeyLease lease, BucketKey key, BucketLimits limits) {
        if (step instanceof KeyLease.Decided decided) {
            localDecisions.increment();
            return CompletableFuture.completedFuture(decided.decision().fromLease());
        }
        if (step instanceof KeyLease.Fetch fetch) {
            return fetch(fetch, lease, key, limits);
        }
        if (step instanceof KeyLease.Wait wait) {
            return wait.fetch().handle((ignored, error) -> null)
                    .thenCompose(ignored -> afterWait(lease, key, limits));
        }
        return callPerRequest(key, limits);
    }

    private CompletionStage<Decision> afterWait(KeyLease lease, BucketKey key, BucketLimits limits) {
        KeyLease.Step step = lease.afterWait(limits, clock.millis(), policy, giver(key));
        if (step instanceof KeyLease.Retry) {
            return callPerRequest(key, limits);
        }
        return perform(step, lease, key, limits);
    }

    private CompletionStage<Decision> fetch(KeyLease.Fetch fetch, KeyLease lease, BucketKey key, BucketLimits limits) {
        leaseCalls.increment();
        CompletionStage<LeaseGrant> grant;
        try {
            grant = source.takeUpTo(key, limits, fetch.batchMicros());
        } catch (RuntimeException e) {
            grant = CompletableFuture.failedFuture(e);
        }
        // The key's bookkeeping hangs on the grant itself, not on the future handed to the caller: a
        // caller that gives up (cancels) must not leave the key waiting forever for a fetch that ended.
        CompletableFuture<Decision> decision = new CompletableFuture<>();
        grant.whenComplete((g, error) -> {
            try {
                if (error != null) {
                    lease.onFetchFailed();
                    decision.completeExceptionally(error);
                } else {
                    decision.complete(lease.onGrant(g, limits, fetch.batchMicros(), clock.millis(), giver(key)));
                }
            } catch (RuntimeException e) {
                decision.completeExceptionally(e);
            } finally {
                fetch.done().complete(null);
            }
        });
        return decision;
    }

    private CompletionStage<Decision> callPerRequest(BucketKey key, BucketLimits limits) {
        perRequestCalls.increment();
        return perRequest.tryAcquire(key, limits);
    }

    private KeyLease.GiveBack giver(BucketKey key) {
        return (limits, micros) -> {
            giveBackCalls.increment();
            source.giveBack(key, limits, micros);
        };
    }

    /**
     * Gives back the tokens of every lease held longer than the TTL, and forgets keys unused for two
     * seconds that hold nothing. Runs by itself from {@code tryAcquire} once per TTL; a scheduler may
     * call it too, so that a key that went quiet does not keep its tokens until the next request.
     */
    public void returnExpiredLeases() {
        leases.sweep();
    }

    /** Gives back every unspent leased token and waits (briefly) for the calls to be sent. */
    @Override
    public void close() {
        leases.releaseAll(); // a failed call's tokens are lost: bounded by one batch per key, see above
    }

    /** Keys this instance keeps state for (a rate meter, maybe a lease); idle ones are forgotten. */
    public int trackedKeys() {
        return leases.size();
    }

    /** Requests passed to the per-request store (cold keys, and waits that found no token). */
    public long perRequestCalls() {
        return perRequestCalls.sum();
    }

    /** Lease requests sent to the source. */
    public long leaseCalls() {
        return leaseCalls.sum();
    }

    /** Give-backs sent to the source. */
    public long giveBackCalls() {
        return giveBackCalls.sum();
    }

    /** Requests decided in memory, from a lease or during the wait after a short grant. */
    public long localDecisions() {
        return localDecisions.sum();
    }

    /** Every call to the shared store: per-request, lease and give-back calls. */
    public long remoteCalls() {
        return perRequestCalls() + leaseCalls() + giveBackCalls();
    }
}
