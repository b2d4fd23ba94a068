package dev.tollgate.core.limits;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which limits apply to a tenant's request on a route, from the tenant's own limits and its plan
 * (the precedence {@code docs/rules-and-keys.md} states for users, section "Plans").
 *
 * <p>Limits fall in four <em>groups</em>: per-route token buckets, per-route quotas (scopes
 * {@code route} and {@code each-route}), tenant-total token buckets and tenant-total quotas (scope
 * {@code tenant}). Each group is supplied whole by the first source that has a limit in it for the
 * route: the tenant's own limits, else the plan's (the default plan's for a tenant on none). Within
 * one source, a {@code route} limit on the route replaces the {@code each-route} limits of its kind
 * (see {@link Plan#applyingTo}). A shadow limit counts like any other: a source whose only limit in
 * a group is a shadow one leaves that group observed, not limited (today's shadow rules do the same
 * to the default rule). Finally a tenant's own limit hides a plan limit of the same name, whatever
 * its group, since a name is a limit's state ({@link LimitKey}).
 */
public final class LimitPrecedence {

    /** Where an applied limit comes from, as the admin API reports it. */
    public enum Source {
        /** The tenant's own limits (today's rules). */
        TENANT,
        /** The plan the tenant is on. */
        PLAN,
        /** The default plan, for a tenant on none. */
        DEFAULT_PLAN
    }

    /** A limit that applies, and where it comes from. */
    public record Applied(Limit limit, Source source) {
    }

    private enum Group { ROUTE_BUCKET, ROUTE_QUOTA, TENANT_BUCKET, TENANT_QUOTA }

    private LimitPrecedence() {
    }

    /**
     * The limits that apply to a request on {@code route}: the tenant's own first (as in
     * {@code own}), then the plan's that remain (as in the plan).
     *
     * @param own           the tenant's own limits, with distinct names (a {@link Plan} holds them)
     * @param plan          the tenant's plan, or the default plan
     * @param isDefaultPlan whether {@code plan} is the default plan (for {@link Source})
     */
    public static List<Applied> resolve(Plan own, Plan plan, boolean isDefaultPlan, String route) {
        List<Applied> applied = new ArrayList<>();
        Set<Group> supplied = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (Limit limit : own.applyingTo(route)) {
            applied.add(new Applied(limit, Source.TENANT));
            supplied.add(groupOf(limit));
            names.add(limit.name());
        }
        Source source = isDefaultPlan ? Source.DEFAULT_PLAN : Source.PLAN;
        for (Limit limit : plan.applyingTo(route)) {
            if (!supplied.contains(groupOf(limit)) && !names.contains(limit.name())) {
                applied.add(new Applied(limit, source));
            }
        }
        return applied;
    }

    private static Group groupOf(Limit limit) {
        boolean bucket = limit.allowance() instanceof TokenBucket;
        if (limit.scope().kind() == LimitScope.Kind.TENANT) {
            return bucket ? Group.TENANT_BUCKET : Group.TENANT_QUOTA;
        }
        return bucket ? Group.ROUTE_BUCKET : Group.ROUTE_QUOTA;
    }
}
