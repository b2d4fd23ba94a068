package dev.tollgate.spring.limiter;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.LocalFallbackLimiter;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.TokenLeaseSource;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * Decides with Redis when it answers in time, with this instance's share of the limit otherwise
 * (seed §7.3, "controlled fail-open"). Every request is answered, and none waits longer than the
 * timeout: each Redis call is cut off after {@code timeout}; failures and timeouts feed a circuit
 * breaker, and while it is open no Redis call is made at all, so no request pays the timeout.
 *
 * <p>Error bound while falling back: see {@link LocalFallbackLimiter}. Every request Redis (or a
 * lease) admits is also taken from this instance's local share, so a switch to the fallback carries
 * on from this instance's recent use instead of a full local burst: with traffic spread evenly over
 * the instances no extra burst is admitted at the switch; otherwise at most the shares of the
 * instances that had been idle, below {@code (N − 1)/N} of the capacity per switch. And when Redis
 * answers again, the first decision for a key charges Redis's bucket with what this instance
 * admitted for it on its own (see {@link #chargeUnreported}), so that Redis does not come back with a
 * bucket refilled by the outage and admit that on top. Left over: admissions of sharded rules, and
 * those whose charge failed, or was not yet made when another instance's request reached Redis.
 */
public final class FailoverRateLimiter {

    private final BucketStore redis;
    private final TokenLeaseSource charges;
    private final LocalFallbackLimiter fallback;
    private final CircuitBreaker breaker;
    private final Duration timeout;
    private final DecisionMetrics metrics;

    /**
     * @param redis   decides with Redis (leasing and sharding included)
     * @param charges the same buckets, to charge them with what the fallback admitted
     */
    public FailoverRateLimiter(BucketStore redis, TokenLeaseSource charges, LocalFallbackLimiter fallback,
                               CircuitBreaker breaker, Duration timeout, DecisionMetrics metrics) {
        this.redis = redis;
        this.charges = charges;
        this.fallback = fallback;
        this.breaker = breaker;
        this.timeout = timeout;
        this.metrics = metrics;
    }

    public Mono<SourcedDecision> decide(BucketKey key, RateLimitRule rule) {
        if (!breaker.tryAcquirePermission()) {
            return Mono.just(decideLocally(key, rule));
        }
        return Mono.defer(() -> {
            long start = System.nanoTime();
            return Mono.fromCompletionStage(() -> redis.tryAcquire(key, rule.limits()))
                    .timeout(timeout)
                    .map(decision -> {
                        if (decision.allowed()) {
                            fallback.recordAdmitted(key, rule);
                        }
                        chargeUnreported(key, rule);
                        if (decision.servedFromLease()) {
                            // No Redis call was made: it tells the breaker and the latency timer nothing.
                            breaker.releasePermission();
                            return new SourcedDecision(decision, DecisionSource.LEASE);
                        }
                        long elapsed = System.nanoTime() - start;
                        breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
                        metrics.redisLatency(elapsed);
                        return new SourcedDecision(decision, DecisionSource.REDIS);
                    })
                    .onErrorResume(error -> {
                        breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, error);
                        metrics.redisFailure(error);
                        return Mono.just(decideLocally(key, rule));
                    })
                    // The client went away before Redis answered: give the permission back.
                    .doOnCancel(breaker::releasePermission);
        });
    }

    /**
     * Redis answers again: charge its bucket with what this instance admitted for the key on its
     * own meanwhile (one extra call, once per key and outage; its answer is not awaited, and if it
     * fails those admissions stay uncharged). Sharded rules are left out: which shard took the load
     * is not known.
     */
    private void chargeUnreported(BucketKey key, RateLimitRule rule) {
        long micros = fallback.takeUnreported(key);
        if (micros > 0 && rule.shards() == 1) {
            try {
                charges.takeUpTo(key, rule.limits(), micros);
            } catch (RuntimeException e) {
                // Redis just went away again: those admissions stay uncharged (bounded above).
            }
        }
    }

    private SourcedDecision decideLocally(BucketKey key, RateLimitRule rule) {
        return new SourcedDecision(fallback.tryAcquire(key.tenant(), key.route(), rule),
                DecisionSource.LOCAL_FALLBACK);
    }
}
