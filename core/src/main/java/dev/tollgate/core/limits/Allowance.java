package dev.tollgate.core.limits;

/**
 * How much a {@link Limit} lets through: a {@link TokenBucket} (a rate with a burst, refilled
 * continuously) or a {@link CalendarQuota} (a count per calendar window, reset at the window's end).
 */
public sealed interface Allowance permits TokenBucket, CalendarQuota {

    /** The largest cost a request may be given against this allowance (a larger one could never pass). */
    long maxCost();
}
