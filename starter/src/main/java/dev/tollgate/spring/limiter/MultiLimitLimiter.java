package dev.tollgate.spring.limiter;

import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.LocalMultiLimitStore;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.core.limits.MultiLimitLeases;
import dev.tollgate.redis.CallRefusedException;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.ScriptCalls;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The multi-limit path: every limit of a request decided all or nothing, by Redis in one script call
 * ({@link MultiLimitScript}, through {@code ScriptCalls}: the same deadline, circuit breaker and
 * latency metric as the single-bucket path) when it answers in time, by this instance's share of
 * each limit otherwise ({@link LocalMultiLimitStore}, whose Javadoc bounds the error). While the
 * breaker is open no Redis call is made.
 *
 * <p>As on the single-bucket path ({@link FailoverRateLimiter}), every Redis decision is passed to
 * the local store ({@link LocalMultiLimitStore#followRedis}), so that a switch to the fallback carries
 * on from what Redis reported instead of a full share; and when Redis answers again, the first
 * decision of each limit charges Redis with what the local store admitted on its own meanwhile: one
 * more call of the same script, shadow charges of the same limits (taken where they fit, never
 * rejecting), not awaited; its result is counted in {@code tollgate.fallback.charges}. The error
 * bound this leaves is {@link LocalMultiLimitStore}'s.
 *
 * <p><b>Hot-key leases</b> (when given {@link MultiLimitLeases}: {@code tollgate.hot-keys.leases.*}, the
 * single-bucket path's settings): a charge set (one route of one tenant, its limits and costs) this
 * instance sees hot is served from whole requests pre-admitted in one call, each all or nothing over
 * every limit; decisions served from a lease are {@link DecisionSource#LEASE}, the one whose call
 * fetched the batch {@link DecisionSource#REDIS}. They hold no over-admission: every one was admitted
 * by the script as that request alone; a quota's lease ends with its window. The delay and
 * under-admission they cost (requests held by one instance's leases, including other routes' leases
 * of a tenant-wide limit) is bounded in {@link MultiLimitLeases}. The local store follows every
 * decision the fetch's call made (so a switch to the fallback counts the leased requests as taken),
 * not the decisions served from a lease. While the breaker is open, leases are not used (held requests
 * go back at their TTL). Not on this path: sharded rules (a sharded rule beside other limits is one
 * unsharded state, see {@code docs/hot-keys-and-cluster.md}).
 */
public final class MultiLimitLimiter {

    /** A multi-limit decision and who made it. */
    public record Sourced(MultiLimitDecision decision, DecisionSource source) {
    }

    private final MultiLimitScript redis;
    private final LocalMultiLimitStore fallback;
    private final CircuitBreaker breaker;
    private final DecisionMetrics metrics;
    /** Null with leases off. */
    private final MultiLimitLeases leases;
    /** Charge-backs sent and not yet answered: leases wait for them (see decide). */
    private final AtomicInteger chargesInFlight = new AtomicInteger();

    /** Without hot-key leases: one Redis call per decision. */
    public MultiLimitLimiter(MultiLimitScript redis, LocalMultiLimitStore fallback, CircuitBreaker breaker,
                             DecisionMetrics metrics) {
        this(redis, fallback, breaker, metrics, null);
    }

    /** With hot-key leases ({@code leases}, null for none) on the same states as {@code redis}. */
    public MultiLimitLimiter(MultiLimitScript redis, LocalMultiLimitStore fallback, CircuitBreaker breaker,
                             DecisionMetrics metrics, MultiLimitLeases leases) {
        this.redis = redis;
        this.fallback = fallback;
        this.breaker = breaker;
        this.metrics = metrics;
        this.leases = leases;
    }

    /** The decision over {@code charges} (one request's, at least one) and who made it; never completes exceptionally. */
    public CompletionStage<Sourced> decide(List<LimitCharge> charges) {
        if (breaker.getState() != CircuitBreaker.State.CLOSED) {
            // As FailoverRateLimiter: open, decide here; half-open, the gate takes the probes' permissions.
            if (!breaker.tryAcquirePermission()) {
                return CompletableFuture.completedFuture(decideLocally(charges));
            }
            breaker.releasePermission();
        }
        if (leases == null || fallback.owesRedis() || chargesInFlight.get() > 0) {
            // Right after the fallback: one request a call until this instance's charges have landed
            // (LocalMultiLimitStore.owesRedis says why), so that Redis decides each request after them.
            return viaRedis(charges);
        }
        CompletionStage<Optional<MultiLimitLeases.Leased>> leased;
        try {
            leased = leases.decide(charges);
        } catch (RuntimeException e) {
            leased = CompletableFuture.failedFuture(e);
        }
        if (MultiLimitLeases.isPerRequest(leased)) {
            return viaRedis(charges); // cold, the usual case: one call for this request
        }
        return leased.handle((answer, error) -> {
            if (error != null) {
                return CompletableFuture.completedFuture(failedOver(error, charges));
            }
            if (answer.isEmpty()) {
                return viaRedis(charges); // cold: one call for this request
            }
            MultiLimitLeases.Leased l = answer.get();
            for (MultiLimitDecision said : l.redisSaid()) {
                chargeBack(fallback.followRedis(said));
            }
            return CompletableFuture.completedFuture(
                    new Sourced(l.decision(), l.fromLease() ? DecisionSource.LEASE : DecisionSource.REDIS));
        }).thenCompose(stage -> stage);
    }

    private CompletionStage<Sourced> viaRedis(List<LimitCharge> charges) {
        CompletionStage<MultiLimitScript.Reply> pending;
        try {
            pending = redis.decide(charges);
        } catch (RuntimeException e) {
            pending = CompletableFuture.failedFuture(e);
        }
        return pending.handle((reply, error) -> {
            if (error == null) {
                chargeBack(fallback.followRedis(reply.decision()));
                return new Sourced(reply.decision(), DecisionSource.REDIS);
            }
            return failedOver(error, charges);
        });
    }

    private Sourced failedOver(Throwable error, List<LimitCharge> charges) {
        Throwable cause = ScriptCalls.failureOf(error);
        if (!(cause instanceof CallRefusedException)) {
            metrics.redisFailure(cause); // a call the breaker refused is no failure of Redis's
        }
        return decideLocally(charges);
    }

    /** Charges Redis with what the local store admitted alone (usually nothing: no call). */
    private void chargeBack(List<LimitCharge> owed) {
        if (owed.isEmpty()) {
            return;
        }
        CompletionStage<MultiLimitScript.Reply> charge;
        chargesInFlight.incrementAndGet();
        try {
            charge = redis.decide(owed);
        } catch (RuntimeException e) {
            charge = CompletableFuture.failedFuture(e);
        }
        charge.whenComplete((reply, error) -> {
            chargesInFlight.decrementAndGet();
            metrics.fallbackCharge(error == null && allCharged(reply));
        });
    }

    /** Whether every shadow charge found room (so was taken): one that did not is lost, and counted. */
    private static boolean allCharged(MultiLimitScript.Reply reply) {
        for (LimitOutcome outcome : reply.decision().outcomes()) {
            if (!outcome.admits()) {
                return false;
            }
        }
        return true;
    }

    private Sourced decideLocally(List<LimitCharge> charges) {
        return new Sourced(fallback.decide(charges), DecisionSource.LOCAL_FALLBACK);
    }
}
