package dev.tollgate.spring.limiter;

import dev.tollgate.core.BucketRequest;
import dev.tollgate.core.Decision;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.LimitPrecedence;
import dev.tollgate.core.limits.MultiLimitDecision;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Enforces the limits of a tenant on a route, whichever way the request reached Tollgate (the global
 * {@code RateLimitFilter} or Spring Cloud Gateway's {@code RequestRateLimiter} filter with
 * {@code TollgateRateLimiter}): looks them up in the {@link LimitBook}, decides, counts the decision
 * and logs rejections. What the client is told is left to the caller.
 *
 * <p>Two paths ({@link AppliedLimits}): a request whose only limit is one per-route token bucket is
 * decided on the single-bucket path ({@link FailoverRateLimiter}: Redis, leases, shards, the local
 * fallback; with several regions, the region's share), exactly as before plans existed; any other
 * set of limits on the multi-limit path ({@link MultiLimitLimiter}: all or nothing, Redis or the
 * local fallback). A request no limit applies to is admitted without a decision: not counted, no
 * rate-limit headers.
 */
public final class LimitEnforcer {

    private final LimitBook limits;
    private final FailoverRateLimiter limiter;
    private final MultiLimitLimiter multiLimiter;
    private final DecisionMetrics metrics;
    private final RejectionLog rejections;
    private final DecisionListener listener;
    private final MonotonicClock clock;

    /**
     * @param multiLimiter decides the multi-limit path; {@code null} where none is wired (then a
     *                     multi-limit request is an error, reported as such)
     * @param clock        times each decision, for {@code tollgate.decision.duration}
     */
    public LimitEnforcer(LimitBook limits, FailoverRateLimiter limiter, MultiLimitLimiter multiLimiter,
                         DecisionMetrics metrics, RejectionLog rejections, DecisionListener listener,
                         MonotonicClock clock) {
        this.limits = limits;
        this.limiter = limiter;
        this.multiLimiter = multiLimiter;
        this.metrics = metrics;
        this.rejections = rejections;
        this.listener = listener;
        this.clock = clock;
    }

    /**
     * What was decided for one request: on the single-bucket path {@code rule} and {@code sourced}
     * (and {@code limits} null), on the multi-limit path {@code limits} (and the others null).
     *
     * @param name the name of the single-bucket path's limit (headers and metrics), null on the other
     */
    public record Verdict(RateLimitRule rule, SourcedDecision sourced, MultiLimitDecision limits, String name) {

        /** Nothing limits the request. */
        static final Verdict UNLIMITED = new Verdict(null, null, new MultiLimitDecision(true, List.of()), null);

        /** A single-bucket verdict. */
        public Verdict(RateLimitRule rule, SourcedDecision sourced) {
            this(rule, sourced, null, null);
        }

        /** Whether the request was decided on the multi-limit path ({@link #limits()}). */
        public boolean multiLimit() {
            return limits != null;
        }

        /** The single-bucket path's decision. */
        public Decision decision() {
            return sourced.decision();
        }

        /** Whether the request goes on: allowed, or over a shadow (dry-run) rule's or limit's only. */
        public boolean admitted() {
            return limits != null ? limits.admitted() : rule.shadow() || sourced.decision().allowed();
        }
    }

    public Mono<Verdict> enforce(String tenant, String route) {
        long started = clock.nanoTime();
        AppliedLimits applied = limits.limitsFor(tenant, route);
        RateLimitRule rule = applied.singleBucket();
        if (rule != null) {
            String name = applied.limits().get(0).limit().name();
            return Mono.fromCompletionStage(limiter.decide(BucketRequest.of(tenant, route, rule))
                    .thenApply(sourced -> account(tenant, route, rule, name, sourced, started)));
        }
        if (applied.limits().isEmpty()) {
            return Mono.just(Verdict.UNLIMITED);
        }
        if (multiLimiter == null) {
            return Mono.error(new IllegalStateException("no multi-limit path is wired for tenant '" + tenant
                    + "' on route '" + route + "'"));
        }
        List<LimitCharge> charges = new ArrayList<>(applied.limits().size());
        for (LimitPrecedence.Applied limit : applied.limits()) {
            charges.add(LimitCharge.of(tenant, route, limit.limit()));
        }
        return Mono.fromCompletionStage(multiLimiter.decide(charges)
                .thenApply(sourced -> accountAll(tenant, route, sourced, started)));
    }

    private Verdict account(String tenant, String route, RateLimitRule rule, String name, SourcedDecision sourced,
                            long started) {
        metrics.decisionTook(clock.nanoTime() - started);
        Decision decision = sourced.decision();
        DecisionOutcome outcome = decision.allowed() ? DecisionOutcome.ALLOWED
                : rule.shadow() ? DecisionOutcome.SHADOW_REJECTED : DecisionOutcome.REJECTED;
        metrics.decision(tenant, route, outcome, sourced.source());
        listener.decided(tenant, route, rule, decision.allowed());
        if (outcome == DecisionOutcome.SHADOW_REJECTED) {
            metrics.limitRejected(route, name, true, sourced.source());
            rejections.shadowRejected(tenant, route, sourced.source().tag());
        } else if (outcome == DecisionOutcome.REJECTED) {
            metrics.limitRejected(route, name, false, sourced.source());
            rejections.rejected(tenant, route, decision.retryAfterSeconds(), sourced.source().tag());
        }
        return new Verdict(rule, sourced, null, name);
    }

    /**
     * Counts a multi-limit decision: once in {@code tollgate.decisions} (allowed or rejected: a shadow
     * limit never makes the request's outcome), and once per limit that rejected or, shadow, would have.
     */
    private Verdict accountAll(String tenant, String route, MultiLimitLimiter.Sourced sourced, long started) {
        metrics.decisionTook(clock.nanoTime() - started);
        MultiLimitDecision decision = sourced.decision();
        DecisionSource source = sourced.source();
        metrics.decision(tenant, route, decision.admitted() ? DecisionOutcome.ALLOWED : DecisionOutcome.REJECTED,
                source);
        listener.decidedLimits(tenant, route, decision);
        for (LimitOutcome outcome : decision.outcomes()) {
            if (!outcome.admits()) {
                metrics.limitRejected(route, outcome.limitDefinition().name(), outcome.shadow(), source);
                if (outcome.shadow()) {
                    rejections.shadowRejected(tenant, route, source.tag());
                }
            }
        }
        if (!decision.admitted()) {
            long retry = decision.retryAfterMillis();
            rejections.rejected(tenant, route, retry == Decision.NEVER ? Decision.NEVER : ceilSeconds(retry),
                    source.tag());
        }
        return new Verdict(null, null, decision, null);
    }

    private static long ceilSeconds(long millis) {
        return (millis + 999) / 1000;
    }
}
