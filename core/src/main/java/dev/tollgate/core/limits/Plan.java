package dev.tollgate.core.limits;

import dev.tollgate.core.InvalidRuleException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A named set of limits that many tenants share (a tier: "free", "pro"). Validated when built.
 *
 * @param name   1 to {@value #MAX_NAME_LENGTH} of {@code A-Z a-z 0-9 . _ -}, starting with a letter or
 *               digit (it is a path segment of the admin API)
 * @param limits at most {@value #MAX_LIMITS}, with distinct names (a name is a limit's state, see
 *               {@link LimitKey})
 */
public record Plan(String name, List<Limit> limits) {

    public static final int MAX_NAME_LENGTH = 64;
    /** Most limits in a plan: each one that applies is a field read and written per request in Redis. */
    public static final int MAX_LIMITS = 16;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_NAME_LENGTH - 1) + "}");

    public Plan {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidRuleException("plan", "must be 1 to " + MAX_NAME_LENGTH
                    + " characters of A-Z a-z 0-9 . _ - starting with a letter or digit, was " + LimitText.quote(name));
        }
        if (limits == null) {
            throw new InvalidRuleException("limits", "is required (an empty list for a plan without limits)");
        }
        if (limits.size() > MAX_LIMITS) {
            throw new InvalidRuleException("limits", "must be at most " + MAX_LIMITS + ", was " + limits.size());
        }
        Set<String> names = new HashSet<>();
        for (Limit limit : limits) {
            if (limit == null) {
                throw new InvalidRuleException("limits", "must not contain null");
            }
            if (!names.add(limit.name())) {
                throw new InvalidRuleException("limits", "must have distinct names, '" + limit.name() + "' is twice");
            }
        }
        limits = List.copyOf(limits);
    }

    /**
     * The plan's limits that apply to a request on {@code route}, in the plan's order. A limit of
     * scope {@code route} on this route replaces the plan's {@code each-route} limits of the same
     * kind (token bucket or quota), so that a plan can give one route more as well as less; limits of
     * tenant scope always apply.
     */
    public List<Limit> applyingTo(String route) {
        boolean routeBucket = false;
        boolean routeQuota = false;
        for (Limit limit : limits) {
            if (limit.scope().kind() == LimitScope.Kind.ROUTE && limit.appliesTo(route)) {
                routeBucket |= limit.allowance() instanceof TokenBucket;
                routeQuota |= limit.allowance() instanceof CalendarQuota;
            }
        }
        List<Limit> applying = new ArrayList<>();
        for (Limit limit : limits) {
            if (!limit.appliesTo(route)) {
                continue;
            }
            if (limit.scope().kind() == LimitScope.Kind.EACH_ROUTE
                    && (limit.allowance() instanceof TokenBucket ? routeBucket : routeQuota)) {
                continue;
            }
            applying.add(limit);
        }
        return applying;
    }
}
