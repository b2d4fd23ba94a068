package dev.tollgate.core.limits;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * Where {@link MultiLimitLeases} takes its leases from: the shared states of the multi-limit path
 * (in the gateway, Redis: {@code multi_limit.lua} to take, {@code multi_limit_return.lua} to give back).
 */
public interface MultiLimitLeaseSource {

    /**
     * Decides up to {@code requests} requests, each charged exactly {@code charges}, in one atomic step
     * on the shared clock, each all or nothing and exactly as if it had arrived alone at that instant:
     * the requests admitted are taken from every limit at once; the first one rejected ends the grant
     * (nothing changed, so every later one would be rejected too).
     *
     * @param requests 1 to {@link #maxRequests()}
     */
    CompletionStage<Grant> takeUpTo(List<LimitCharge> charges, int requests);

    /** The most requests one {@link #takeUpTo} call decides. */
    int maxRequests();

    /**
     * Gives back what the {@code unspent} admitted requests of a grant took, limit by limit (a shadow
     * limit gives back only what it was charged: it is charged only where it had room). A token bucket
     * gets the tokens back as last written, without refilling it and never above the capacity
     * {@link dev.tollgate.core.TokenLeaseSource#giveBack} states the same for the single-bucket path);
     * a quota gets its count lowered only if it still counts the window the grant was counted in, so
     * nothing is given to a later window.
     */
    CompletionStage<Void> giveBack(Grant grant, List<MultiLimitDecision> unspent);

    /**
     * What {@link #takeUpTo} did.
     *
     * @param charges   the request's limits
     * @param admitted  the decisions of the requests admitted, in order (each as Redis would have answered
     *                  that request alone: every limit charged)
     * @param rejection the decision of the first request rejected, or {@code null} when all were admitted
     * @param nowMillis the shared clock's instant of the decisions (epoch ms); if they were made at
     *                  several (a copy asked again), the latest, so that a window's end measured from it
     *                  is never later than measured from any of them
     */
    record Grant(List<LimitCharge> charges, List<MultiLimitDecision> admitted, MultiLimitDecision rejection,
                 long nowMillis) {

        public Grant {
            charges = List.copyOf(charges);
            admitted = List.copyOf(admitted);
            if (admitted.isEmpty()) {
                Objects.requireNonNull(rejection, "a grant of no request says why");
            }
        }
    }
}
