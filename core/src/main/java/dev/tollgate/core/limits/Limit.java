package dev.tollgate.core.limits;

import dev.tollgate.core.InvalidRuleException;
import java.util.regex.Pattern;

/**
 * One limit of a plan or of a tenant's rules: what it counts ({@link #scope()}), how much it lets
 * through ({@link #allowance()}), what a request costs against it, and whether it is only observed.
 * Immutable and validated when built: a bad limit fails where it is configured, with an
 * {@link InvalidRuleException} naming the field and what it accepts.
 *
 * @param name      how answers, headers and metrics name the limit: 1 to {@value #MAX_NAME_LENGTH} of
 *                  {@code A-Z a-z 0-9 . _ -}, starting with a letter or digit. The set is small on
 *                  purpose: the name is a metric label and a structured-field string in
 *                  {@code RateLimit-Policy}, and is part of the limit's Redis state (see
 *                  {@link LimitKey})
 * @param scope     what the limit counts
 * @param allowance a token bucket or a calendar quota
 * @param cost      what one request takes by default (tokens, or units of the quota): 1 to the
 *                  capacity or quota
 * @param shadow    a dry run: the limit is charged and reported like any other but never rejects
 */
public record Limit(String name, LimitScope scope, Allowance allowance, long cost, boolean shadow) {

    public static final int MAX_NAME_LENGTH = 64;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_NAME_LENGTH - 1) + "}");

    public Limit {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidRuleException("name", "must be 1 to " + MAX_NAME_LENGTH
                    + " characters of A-Z a-z 0-9 . _ - starting with a letter or digit, was " + LimitText.quote(name));
        }
        if (scope == null) {
            throw new InvalidRuleException("scope", "is required: one of route, each-route, tenant");
        }
        if (allowance == null) {
            throw new InvalidRuleException("allowance",
                    "is required: either capacity and refillPerSecond (a token bucket), or quota and period");
        }
        requireCost(cost, allowance, "cost");
    }

    /** An enforced limit whose requests cost 1. */
    public Limit(String name, LimitScope scope, Allowance allowance) {
        this(name, scope, allowance, 1, false);
    }

    /** The same limit, as a dry run ({@code shadow}) or enforced. */
    public Limit shadow(boolean shadow) {
        return shadow == this.shadow ? this : new Limit(name, scope, allowance, cost, shadow);
    }

    /** The same limit with requests costing {@code cost} by default. */
    public Limit withCost(long cost) {
        return new Limit(name, scope, allowance, cost, shadow);
    }

    /** Whether a request on {@code route} is counted by this limit. */
    public boolean appliesTo(String route) {
        return scope.appliesTo(route);
    }

    /**
     * The state this limit keeps for {@code tenant}'s request on {@code route}: one per route for
     * {@code route} and {@code each-route} scopes, one for the whole tenant for {@code tenant} scope.
     */
    public LimitKey keyFor(String tenant, String route) {
        return new LimitKey(tenant, scope.kind() == LimitScope.Kind.TENANT ? LimitKey.WHOLE_TENANT : route, name);
    }

    // Written out, as LimitKey's: limits are compared and hashed on every request of the multi-limit
    // path (in its charges, the lease table's keys), nearly always against the same instance. The
    // hash leaves out the allowance and scope (records of their own) for speed; equal limits still
    // hash alike. Same contract as the generated methods.
    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof Limit limit && cost == limit.cost && shadow == limit.shadow
                && name.equals(limit.name) && scope.equals(limit.scope) && allowance.equals(limit.allowance);
    }

    @Override
    public int hashCode() {
        return (31 * name.hashCode() + Long.hashCode(cost)) * 2 + (shadow ? 1 : 0);
    }

    static void requireCost(long cost, Allowance allowance, String field) {
        if (cost < 1 || cost > allowance.maxCost()) {
            throw new InvalidRuleException(field, "must be between 1 and the "
                    + (allowance instanceof TokenBucket ? "capacity " : "quota ") + allowance.maxCost()
                    + ", was " + cost);
        }
    }
}
