package dev.tollgate.spring.limiter;

import dev.tollgate.core.BucketRequest;
import dev.tollgate.core.Decision;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import reactor.core.publisher.Mono;

/**
 * Enforces the rule of a tenant on a route, whichever way the request reached Tollgate (the global
 * {@code RateLimitFilter} or Spring Cloud Gateway's {@code RequestRateLimiter} filter with
 * {@code TollgateRateLimiter}): looks the rule up, decides (Redis or the local fallback), counts the
 * decision and logs rejections. What the client is told is left to the caller.
 */
public final class LimitEnforcer {

    private final RuleBook rules;
    private final FailoverRateLimiter limiter;
    private final DecisionMetrics metrics;
    private final RejectionLog rejections;
    private final DecisionListener listener;
    private final MonotonicClock clock;

    public LimitEnforcer(RuleBook rules, FailoverRateLimiter limiter, DecisionMetrics metrics, RejectionLog rejections) {
        this(rules, limiter, metrics, rejections, DecisionListener.NONE, MonotonicClock.system());
    }

    /** @param clock times each decision, for {@code tollgate.decision.duration} */
    public LimitEnforcer(RuleBook rules, FailoverRateLimiter limiter, DecisionMetrics metrics, RejectionLog rejections,
                         DecisionListener listener, MonotonicClock clock) {
        this.rules = rules;
        this.limiter = limiter;
        this.metrics = metrics;
        this.rejections = rejections;
        this.listener = listener;
        this.clock = clock;
    }

    /** What was decided for one request. */
    public record Verdict(RateLimitRule rule, SourcedDecision sourced) {

        public Decision decision() {
            return sourced.decision();
        }

        /** Whether the request goes on: allowed, or over a shadow (dry-run) rule's limit. */
        public boolean admitted() {
            return rule.shadow() || sourced.decision().allowed();
        }
    }

    public Mono<Verdict> enforce(String tenant, String route) {
        long started = clock.nanoTime();
        RateLimitRule rule = rules.ruleFor(tenant, route);
        return Mono.fromCompletionStage(limiter.decide(BucketRequest.of(tenant, route, rule))
                .thenApply(sourced -> account(tenant, route, rule, sourced, started)));
    }

    private Verdict account(String tenant, String route, RateLimitRule rule, SourcedDecision sourced, long started) {
        metrics.decisionTook(clock.nanoTime() - started);
        Decision decision = sourced.decision();
        DecisionOutcome outcome = decision.allowed() ? DecisionOutcome.ALLOWED
                : rule.shadow() ? DecisionOutcome.SHADOW_REJECTED : DecisionOutcome.REJECTED;
        metrics.decision(tenant, route, outcome, sourced.source());
        listener.decided(tenant, route, rule, decision.allowed());
        if (outcome == DecisionOutcome.SHADOW_REJECTED) {
            rejections.shadowRejected(tenant, route, sourced.source().tag());
        } else if (outcome == DecisionOutcome.REJECTED) {
            rejections.rejected(tenant, route, decision.retryAfterSeconds(), sourced.source().tag());
        }
        return new Verdict(rule, sourced);
    }
}
