package dev.tollgate.core;

/**
 * What a {@link TokenLeaseSource} handed out for one lease request.
 *
 * @param grantedMicros        micro-tokens taken from the bucket for the caller: a whole number of
 *                             requests' cost, between 0 and the amount asked for
 * @param tokensLeftMicros     micro-tokens left in the bucket after the grant
 * @param millisUntilRequested milliseconds from now until the bucket holds the amount asked for
 *                             again (rounded up; 0 if it already does)
 */
public record LeaseGrant(long grantedMicros, long tokensLeftMicros, long millisUntilRequested) {

    public LeaseGrant {
        if (grantedMicros < 0 || tokensLeftMicros < 0 || millisUntilRequested < 0) {
            throw new IllegalArgumentException("a lease grant has no negative field, was " + grantedMicros
                    + " granted, " + tokensLeftMicros + " left, " + millisUntilRequested + " ms");
        }
    }
}
