package dev.tollgate.spring.limiter;

import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.LocalMultiLimitStore;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.redis.CallRefusedException;
import dev.tollgate.redis.MultiLimitScript;
import dev.tollgate.redis.ScriptCalls;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

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
 * bound this leaves is {@link LocalMultiLimitStore}'s. Not on this path: hot-key leases and sharded
 * rules (every decision is one Redis call on the limits' own states, see {@code docs/operations.md}).
 */
public final class MultiLimitLimiter {

    /** A multi-limit decision and who made it. */
    public record Sourced(MultiLimitDecision decision, DecisionSource source) {
    }

    private final MultiLimitScript redis;
    private final LocalMultiLimitStore fallback;
    private final CircuitBreaker breaker;
    private final DecisionMetrics metrics;

    public MultiLimitLimiter(MultiLimitScript redis, LocalMultiLimitStore fallback, CircuitBreaker breaker,
                             DecisionMetrics metrics) {
        this.redis = redis;
        this.fallback = fallback;
        this.breaker = breaker;
        this.metrics = metrics;
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
            Throwable cause = ScriptCalls.failureOf(error);
            if (!(cause instanceof CallRefusedException)) {
                metrics.redisFailure(cause); // a call the breaker refused is no failure of Redis's
            }
            return decideLocally(charges);
        });
    }

    /** Charges Redis with what the local store admitted alone (usually nothing: no call). */
    private void chargeBack(List<LimitCharge> owed) {
        if (owed.isEmpty()) {
            return;
        }
        CompletionStage<MultiLimitScript.Reply> charge;
        try {
            charge = redis.decide(owed);
        } catch (RuntimeException e) {
            charge = CompletableFuture.failedFuture(e);
        }
        charge.whenComplete((reply, error) -> metrics.fallbackCharge(error == null && allCharged(reply)));
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
