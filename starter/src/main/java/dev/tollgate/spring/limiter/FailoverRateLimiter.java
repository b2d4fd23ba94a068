package dev.tollgate.spring.limiter;

import dev.tollgate.core.BucketCharges;
import dev.tollgate.core.BucketRequest;
import dev.tollgate.core.Decision;
import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.ShardedBucketStore;
import dev.tollgate.redis.CallRefusedException;
import dev.tollgate.redis.ScriptCalls;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Decides with Redis when it answers in time, with this instance's share of the limit otherwise
 * ("controlled fail-open", see {@code docs/operations.md}). Every request is answered: a Redis call
 * that gets no reply within {@code tollgate.redis.timeout} of being written fails (the deadline
 * lives with the call, see {@code dev.tollgate.redis.ScriptCalls}, so it judges Redis and not this
 * gateway's own backlog). The circuit breaker judges Redis by its calls ({@link CircuitBreakerGate};
 * a call may carry many requests); while it is open no Redis call is made at all, and requests are
 * decided here at once, each counted by the breaker as a call not permitted.
 *
 * <p>Error bound while falling back: see {@link LocalFallbackLimiter}. Every request Redis (or a
 * lease) admits is also taken from this instance's local share, so a switch to the fallback carries
 * on from this instance's recent use instead of a full local burst: with traffic spread evenly over
 * the instances no extra burst is admitted at the switch; otherwise at most the shares of the
 * instances that had been idle, below {@code (N − 1)/N} of the capacity per switch. And when Redis
 * answers again, the first decision for a key charges Redis's bucket with what this instance
 * admitted for it on its own ({@link BucketCharges}), so that Redis does not come back with a bucket
 * refilled by the outage and admit that on top; until those charges have landed, requests go to Redis
 * one at a time, with no lease ({@link LocalFallbackLimiter#owesRedis}). Left over: admissions of sharded rules (which shard
 * took the load is not known), and those whose charge failed (counted) or was not yet made when
 * another instance's request reached Redis.
 */
public final class FailoverRateLimiter {

    private final ShardedBucketStore redis;
    private final ShardedBucketStore unleased;
    private final BucketCharges charges;
    private final LocalFallbackLimiter fallback;
    private final CircuitBreaker breaker;
    private final DecisionMetrics metrics;
    /** Charges sent and not yet answered: leases wait for them (see decide). */
    private final AtomicInteger chargesInFlight = new AtomicInteger();

    /**
     * @param redis   decides with Redis (leasing and sharding included)
     * @param charges the same buckets, charged with what the fallback admitted
     */
    public FailoverRateLimiter(ShardedBucketStore redis, BucketCharges charges, LocalFallbackLimiter fallback,
                               CircuitBreaker breaker, DecisionMetrics metrics) {
        this(redis, redis, charges, fallback, breaker, metrics);
    }

    /**
     * @param redis    decides with Redis (leasing and sharding included)
     * @param unleased the same without leases: used while this instance owes Redis what its fallback
     *                 admitted, or such a charge is in flight ({@link LocalFallbackLimiter#owesRedis})
     * @param charges  the same buckets, charged with what the fallback admitted
     */
    public FailoverRateLimiter(ShardedBucketStore redis, ShardedBucketStore unleased, BucketCharges charges,
                               LocalFallbackLimiter fallback, CircuitBreaker breaker, DecisionMetrics metrics) {
        this.redis = redis;
        this.unleased = unleased;
        this.charges = charges;
        this.fallback = fallback;
        this.breaker = breaker;
        this.metrics = metrics;
    }

    /** The decision and who made it; never completes exceptionally. */
    public CompletionStage<SourcedDecision> decide(BucketRequest request) {
        if (breaker.getState() != CircuitBreaker.State.CLOSED) {
            // Open: decide here without going near Redis (asking also lets the breaker move on to
            // half-open once its wait is over). Half-open: the probe calls' own permissions are taken
            // by the gate, per call; this one is only a look.
            if (!breaker.tryAcquirePermission()) {
                return CompletableFuture.completedFuture(decideLocally(request));
            }
            breaker.releasePermission();
        }
        CompletionStage<Decision> pending;
        try {
            // Right after the fallback, one request a call until the charges have landed (owesRedis says why).
            ShardedBucketStore store = fallback.owesRedis() || chargesInFlight.get() > 0 ? unleased : redis;
            pending = store.tryAcquire(request);
        } catch (RuntimeException e) {
            pending = CompletableFuture.failedFuture(e);
        }
        return pending.handle((decision, error) -> error == null
                ? decided(request, decision)
                : failed(request, error));
    }

    private SourcedDecision decided(BucketRequest request, Decision decision) {
        if (decision.allowed()) {
            fallback.recordAdmitted(request.key(), request.limits());
        }
        chargeUnreported(request);
        return new SourcedDecision(decision, decision.servedFromLease() ? DecisionSource.LEASE : DecisionSource.REDIS);
    }

    private SourcedDecision failed(BucketRequest request, Throwable error) {
        Throwable cause = ScriptCalls.failureOf(error);
        if (!(cause instanceof CallRefusedException)) {
            metrics.redisFailure(cause); // a call the breaker refused is no failure of Redis's
        }
        return decideLocally(request);
    }

    /**
     * Redis answers again: charge its bucket with what this instance admitted for the key on its
     * own meanwhile (one extra call, once per key and outage; not awaited; a failure is counted and
     * those admissions stay uncharged). Sharded rules are left out: which shard took the load is not
     * known.
     */
    private void chargeUnreported(BucketRequest request) {
        long micros = fallback.takeUnreported(request.key());
        if (micros <= 0 || request.isSharded()) {
            return;
        }
        CompletionStage<Void> charge;
        chargesInFlight.incrementAndGet();
        try {
            charge = charges.charge(request.key(), request.limits(), micros);
        } catch (RuntimeException e) {
            charge = CompletableFuture.failedFuture(e);
        }
        charge.whenComplete((ignored, error) -> {
            chargesInFlight.decrementAndGet();
            metrics.fallbackCharge(error == null);
        });
    }

    private SourcedDecision decideLocally(BucketRequest request) {
        return new SourcedDecision(fallback.tryAcquire(request.key(), request.limits()), DecisionSource.LOCAL_FALLBACK);
    }
}
