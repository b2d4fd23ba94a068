package dev.tollgate.core.limits;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.LeaseTable;
import dev.tollgate.core.MonotonicClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hot-key leases on the multi-limit path ({@code docs/hot-keys-and-cluster.md}): for a charge set (one
 * request's exact list of limits: one route of one tenant, its costs) this instance sees at
 * {@link LeasePolicy#hotRequestsPerSecond()} or more (the single-bucket path's {@link LeasePolicy}, its
 * hysteresis and TTL), it takes a batch of <em>whole requests</em> in one call
 * ({@link MultiLimitLeaseSource#takeUpTo}: the shared script decides up to {@code k} copies of the
 * request at one instant, each all or nothing) and admits from them in memory. Cold charge sets keep one
 * call per request.
 *
 * <p><b>What a lease holds.</b> A request with three limits (each-route rate {@code r}, tenant-wide
 * rate {@code t}, day quota {@code q}, costs {@code c_r, c_t, c_q}) leased {@code k} requests holds
 * {@code k × c_r} tokens of {@code r}'s bucket for its route, {@code k × c_t} tokens of {@code t}'s
 * tenant-wide bucket and {@code k × c_q} units of {@code q}'s count in the current day, all taken in the
 * same atomic call; a limit without room for one more request ends the grant there, so no limit is ever
 * charged for a request the others refused (a rejecting limit: no lease beyond what was admitted before
 * it). {@code k} is at most {@code B}: for each limit, {@link LeasePolicy#maxBatchTokens()} and
 * {@link LeasePolicy#maxCapacityShare()} of its capacity or quota, in whole requests of its cost (the
 * smallest over the limits), and at most {@link MultiLimitLeaseSource#maxRequests()}; a set whose
 * {@code B} is 0 is never leased.
 *
 * <p><b>Bounds</b> ({@code N} instances, {@code H} hot charge sets sharing a limit on one instance, e.g.
 * the routes of a tenant under one tenant-wide limit):
 * <ul>
 *   <li><b>No over-admission</b> beyond the limits themselves: every request admitted from a lease was
 *       admitted by the shared script, as that request alone, when the lease was taken; a token bucket
 *       admits at most {@code C + R × T} from the first request on, a quota at most its quota per
 *       window, with any number of instances and leases.</li>
 *   <li><b>Quota windows:</b> a lease ends at the end of the earliest quota window it was counted in,
 *       measured from when the take was sent (before Redis read its clock; the two clocks' drift over
 *       one TTL aside), and is not spent after; its requests go back only into that window (the give-back
 *       of a quota that counts a later window changes nothing). So a window's requests are admitted in
 *       that window, never in the next.</li>
 *   <li><b>Burst:</b> requests are taken up front, so in a window {@code w} a bucket admits at most
 *       {@code C + R × w + N × H × B × cost} (tokens leased before the window and spent in it).</li>
 *   <li><b>Under-admission and delay:</b> requests held on lease by one instance are unavailable to
 *       others until spent or given back: a request may be rejected while up to
 *       {@code N × H × B} requests' worth of a shared limit sit in other leases (for a tenant-wide limit,
 *       in other routes' leases too), for at most {@link LeasePolicy#leaseTtlMillis()}. After a short
 *       grant the instance rejects locally until the rejecting limits' exact retry time as of the
 *       grant (a quota: its window's end), counted from the send, so never later than Redis would have
 *       admitted but for other instances' give-backs in between. Tokens of an instance that dies, or
 *       whose give-back fails, are lost: under-admission by at most {@code H × B} requests per event.</li>
 *   <li><b>Limit changes:</b> a changed limit makes a new charge set; the old set's requests are given
 *       back when its lease expires (at most the TTL), each limit capped at the old capacity.</li>
 * </ul>
 *
 * <p><b>What a leased decision reports:</b> the decision the script made for that pre-admitted request
 * (handed out in the script's order), its waits shortened by the lease's age: {@code remaining} counts
 * this instance's lease as still available and is as of the grant, so it overstates by what others took
 * since (at most the TTL's worth). The request whose call fetched the batch gets its decision from that
 * call.
 */
public final class MultiLimitLeases implements AutoCloseable {

    /**
     * A decision made here.
     *
     * @param decision  the request's decision
     * @param fromLease true if served from a lease without a call for this request
     * @param redisSaid for the request that fetched: every decision the fetch's call made, in order
     *                  (admitted ones, then the rejection, if any), which the fallback follows; else empty
     */
    public record Leased(MultiLimitDecision decision, boolean fromLease, List<MultiLimitDecision> redisSaid) {
    }

    private static final CompletableFuture<Optional<Leased>> PER_REQUEST = CompletableFuture.completedFuture(Optional.empty());

    private final MultiLimitLeaseSource source;
    private final LeasePolicy policy;
    private final MonotonicClock clock;
    private final LeaseTable<List<LimitCharge>, ChargeSetLease> leases;
    private final LongAdder leaseCalls = new LongAdder();
    private final LongAdder giveBackCalls = new LongAdder();
    private final LongAdder localDecisions = new LongAdder();

    public MultiLimitLeases(MultiLimitLeaseSource source, LeasePolicy policy, MonotonicClock clock) {
        this.source = source;
        this.policy = policy;
        this.clock = clock;
        this.leases = new LeaseTable<>(clock, policy.leaseTtlMillis(),
                (charges, lease, now) -> lease.sweep(now, this::giveBack),
                (charges, lease, sent) -> lease.release((grant, unspent) -> {
                    giveBackCalls.increment();
                    try {
                        sent.accept(source.giveBack(grant, unspent));
                    } catch (RuntimeException e) {
                        // Lost: under-admission by at most one batch, see the class comment.
                    }
                }));
    }

    /**
     * The decision of a request charged {@code charges}, if this instance makes it from a lease (or
     * by fetching one); empty when the request is to be decided by one call of its own (a cold charge
     * set, a set too small to lease, a fetch it waited for failed). Requests that arrive while a fetch
     * is on its way wait for it; if its batch runs out before all of them are served, the rest share one
     * more fetch. Fails as the source's call does. When the answer is known at once to be "one call of
     * its own" (a cold set, the usual case), it is always the same completed stage, which
     * {@link #isPerRequest} recognises, so that a caller can go straight to its call.
     */
    public CompletionStage<Optional<Leased>> decide(List<LimitCharge> charges) {
        long now = clock.millis();
        leases.sweepIfDue(now);
        while (true) {
            ChargeSetLease lease = leases.get(charges);
            if (lease == null) {
                // Kept as an immutable copy: the caller's list is only looked up with. B is worked out once
                // per set (its limits and costs are what identifies it), not on every request.
                lease = leases.computeIfAbsent(List.copyOf(charges), set -> new ChargeSetLease(now,
                        policy.leaseTtlMillis(), maxRequests(set, policy, source.maxRequests())));
            }
            ChargeSetLease.Step step = lease.onRequest(now, policy, this::giveBack);
            if (!(step instanceof ChargeSetLease.Retry)) {
                return perform(step, lease, charges);
            }
            leases.remove(charges, lease); // swept meanwhile: its sweeper removes it too, whoever is first
        }
    }

    /**
     * {@code B} for a charge set: the most requests one lease may hold (see the class comment); 0 when
     * some limit's share is less than one request (or the request never fits): not leased.
     */
    static int maxRequests(List<LimitCharge> charges, LeasePolicy policy, int sourceMax) {
        long max = sourceMax;
        for (LimitCharge charge : charges) {
            long perLimit;
            if (charge.limit().allowance() instanceof TokenBucket bucket) {
                BucketLimits limits = bucket.limits(charge.cost());
                perLimit = limits.costFits() ? policy.maxBatchMicros(limits) / limits.costMicros() : 0;
            } else {
                CalendarQuota quota = (CalendarQuota) charge.limit().allowance();
                long byShare = (long) Math.floor(quota.quota() * policy.maxCapacityShare());
                perLimit = Math.min(byShare, policy.maxBatchTokens()) / charge.cost();
            }
            max = Math.min(max, perLimit);
        }
        return (int) Math.max(0, max);
    }

    /**
     * Whether {@code answer}, returned by {@link #decide}, already says "decide by one call of its own":
     * the caller then skips waiting on it (two completion stages fewer per request of a cold set).
     */
    public static boolean isPerRequest(CompletionStage<Optional<Leased>> answer) {
        return answer == PER_REQUEST;
    }

    private CompletionStage<Optional<Leased>> perform(ChargeSetLease.Step step, ChargeSetLease lease,
                                                      List<LimitCharge> charges) {
        if (step instanceof ChargeSetLease.Decided decided) {
            localDecisions.increment();
            return CompletableFuture.completedFuture(Optional.of(new Leased(decided.decision(), true, List.of())));
        }
        if (step instanceof ChargeSetLease.Fetch fetch) {
            return fetch(fetch, lease, charges);
        }
        if (step instanceof ChargeSetLease.Wait wait) {
            return wait.fetch().handle((ignored, error) -> null).thenCompose(ignored -> {
                ChargeSetLease.Step after = lease.afterWait(clock.millis(), policy, this::giveBack);
                return after instanceof ChargeSetLease.Retry ? PER_REQUEST : perform(after, lease, charges);
            });
        }
        return PER_REQUEST;
    }

    private CompletionStage<Optional<Leased>> fetch(ChargeSetLease.Fetch fetch, ChargeSetLease lease,
                                                    List<LimitCharge> charges) {
        leaseCalls.increment();
        CompletionStage<MultiLimitLeaseSource.Grant> grant;
        try {
            grant = source.takeUpTo(charges, fetch.requests());
        } catch (RuntimeException e) {
            grant = CompletableFuture.failedFuture(e);
        }
        // The bookkeeping hangs on the grant itself, not on the future handed to the caller: a caller
        // that gives up must not leave the set waiting forever for a fetch that ended.
        CompletableFuture<Optional<Leased>> decision = new CompletableFuture<>();
        grant.whenComplete((g, error) -> {
            try {
                if (error != null) {
                    lease.onFetchFailed();
                    decision.completeExceptionally(error);
                } else {
                    MultiLimitDecision first = lease.onGrant(g, fetch.startedAtMillis(), clock.millis(), this::giveBack);
                    List<MultiLimitDecision> said = new ArrayList<>(g.admitted());
                    if (g.rejection() != null) {
                        said.add(g.rejection());
                    }
                    decision.complete(Optional.of(new Leased(first, false, said)));
                }
            } catch (RuntimeException e) {
                lease.onFetchFailed();
                decision.completeExceptionally(e);
            } finally {
                fetch.done().complete(null);
            }
        });
        return decision;
    }

    private void giveBack(MultiLimitLeaseSource.Grant grant, List<MultiLimitDecision> unspent) {
        giveBackCalls.increment();
        try {
            source.giveBack(grant, unspent);
        } catch (RuntimeException e) {
            // Lost: under-admission by at most one batch, see the class comment.
        }
    }

    /**
     * Gives back the requests of every lease past its end (TTL or quota window), and forgets charge sets
     * unused for two seconds that hold nothing. Runs from {@link #decide} once per TTL; a scheduler may
     * call it too, so that a set that went quiet does not keep its requests until the next one.
     */
    public void returnExpiredLeases() {
        leases.sweep();
    }

    /** Gives back every unspent request and waits (briefly) for the calls to be sent. */
    @Override
    public void close() {
        leases.releaseAll(); // a failed call's requests are lost: one batch per charge set, see above
    }

    /** Charge sets this instance keeps state for (a rate meter, maybe a lease); idle ones are forgotten. */
    public int trackedKeys() {
        return leases.size();
    }

    /** Requests held on lease right now, over every charge set. */
    public long heldRequests() {
        long held = 0;
        for (ChargeSetLease lease : leases.leases()) {
            held += lease.heldRequests();
        }
        return held;
    }

    /** Take calls sent to the source. */
    public long leaseCalls() {
        return leaseCalls.sum();
    }

    /** Give-backs sent to the source. */
    public long giveBackCalls() {
        return giveBackCalls.sum();
    }

    /** Requests decided in memory: from a lease, or rejected while a short grant's limits refill. */
    public long localDecisions() {
        return localDecisions.sum();
    }
}
