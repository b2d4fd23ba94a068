package dev.tollgate.core.limits;

import dev.tollgate.core.Decision;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The all-or-nothing decision over every limit of one request: admitted only if every enforced limit
 * admits; then each limit that had room was charged, and otherwise none was.
 *
 * @param admitted whether the request may pass
 * @param outcomes one per limit charged, in the request's order
 */
public record MultiLimitDecision(boolean admitted, List<LimitOutcome> outcomes) {

    public MultiLimitDecision {
        outcomes = List.copyOf(outcomes);
    }

    /** The enforced limits that had no room: empty if and only if the request was admitted. */
    public List<LimitOutcome> rejectedBy() {
        return outcomes.stream().filter(LimitOutcome::rejects).toList();
    }

    /** The shadow limits that would have rejected the request (reported, never enforced). */
    public List<LimitOutcome> shadowRejections() {
        return outcomes.stream().filter(o -> o.shadow() && !o.admits()).toList();
    }

    /**
     * Ms from now until every limit that rejected would admit a request of the same cost (the longest
     * of their waits): 0 for an admitted request, {@link Decision#NEVER} if one of them never will.
     */
    public long retryAfterMillis() {
        long wait = 0;
        for (LimitOutcome rejection : rejectedBy()) {
            if (rejection.retryAfterMillis() == Decision.NEVER) {
                return Decision.NEVER;
            }
            wait = Math.max(wait, rejection.retryAfterMillis());
        }
        return wait;
    }

    /**
     * The enforced limit closest to exhaustion, the one rate-limit headers report: the one with the
     * fewest requests of this cost left; of those, the one that stays short longest (largest retry,
     * {@link Decision#NEVER} first), then the first in the request's order. Empty when every limit is
     * a shadow one.
     */
    public Optional<LimitOutcome> closestToExhaustion() {
        Comparator<LimitOutcome> order = Comparator.comparingLong(LimitOutcome::requestsLeft)
                .thenComparing(Comparator.comparingLong(MultiLimitDecision::waitRank).reversed());
        LimitOutcome best = null;
        for (LimitOutcome outcome : outcomes) {
            if (!outcome.shadow() && (best == null || order.compare(outcome, best) < 0)) {
                best = outcome;
            }
        }
        return Optional.ofNullable(best);
    }

    private static long waitRank(LimitOutcome outcome) {
        return outcome.retryAfterMillis() == Decision.NEVER ? Long.MAX_VALUE : outcome.retryAfterMillis();
    }
}
