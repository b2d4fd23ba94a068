package dev.tollgate.core.limits;

import dev.tollgate.core.InvalidRuleException;
import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.core.limits.LimitPrecedence.Applied;
import dev.tollgate.core.limits.LimitPrecedence.Source;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The limits of every tenant, from the tenants' own rules, the plans, which plan each tenant is on and
 * the default plan: a {@link LimitBook} answering with {@link LimitPrecedence#resolve} exactly.
 * Immutable; the {@code with...} methods return a changed copy at a cost in proportion to the change.
 *
 * <ul>
 *   <li>A tenant's own rule for the route (the row {@code (T, R)}, else {@code (T, *)}; the default
 *       rule is not a tenant's own) is one token bucket named {@value #RULE_LIMIT_NAME}, of scope
 *       {@code route} (or {@code each-route} for {@code *}), with the rule's capacity, refill, cost and
 *       shadow flag.</li>
 *   <li>The tenant's plan, or the default plan for a tenant on none or on a plan name that does not
 *       exist (the loader reports such names; nothing is logged here, on the request path).</li>
 *   <li>The default plan is the plan named {@code defaultPlanName} if it exists, else a plan made of
 *       the default rule alone, as one {@code each-route} token bucket named
 *       {@value #DEFAULT_LIMIT_NAME}. So with no plans, every request resolves to what
 *       {@link RuleSet#ruleFor} returns, the very same {@link RateLimitRule}.</li>
 *   <li>{@link AppliedLimits#singleBucket()} is set iff exactly one limit applies and it is a per-route
 *       token bucket: the tenant's {@link RateLimitRule} from the rule set when it is the tenant's own
 *       rule (its shards kept), the default rule when it is the synthetic default plan's limit, else
 *       {@code new RateLimitRule(capacity, refillPerSecond, cost, shadow)} of the plan's limit.</li>
 * </ul>
 *
 * <p>Cost per request: everything that does not depend on the tenant is resolved when a plan is
 * added or changed ({@code 1 + r} resolutions per plan, {@code r} being the routes its
 * {@code route}-scope limits name). A request then costs three {@link LayeredMap} lookups (at most two
 * hash probes each): the tenant's plan name, its own rule for {@code (T, R)} and, if none, for
 * {@code (T, *)}, each rule lookup allocating one {@link RuleScope} as {@link RuleSet#ruleFor} does;
 * plus one or two hash probes for the plan and the route. A tenant without a rule of its own
 * allocates nothing else: the answer is shared by every tenant on the plan. A tenant with its own
 * rule allocates one {@link AppliedLimits} and, when plan limits remain beside the rule, one list:
 * the rule's {@link Limit} is built when the rule is loaded and kept beside it (memory: one
 * {@code Limit}, {@code TokenBucket}, {@code LimitScope} and {@code Applied} per rule row).
 */
public final class PlanBook implements LimitBook {

    /** The name of the limit a tenant's own rule (today's rule rows) becomes. */
    public static final String RULE_LIMIT_NAME = "rule";
    /** The name of the synthetic default plan's one limit, made of the default rule. */
    public static final String DEFAULT_LIMIT_NAME = "default";

    /**
     * How the tenant ids of anonymous callers (limited by client address, not by a key) begin. A
     * {@code :} never occurs in a tenant id the directory accepts, so no real tenant starts so.
     */
    public static final String ANONYMOUS_TENANT_PREFIX = "anon:";
    /**
     * The plan of every anonymous caller that is on no plan of its own (the usual case), when a plan of
     * this name exists; otherwise anonymous callers are on the default plan like any tenant on none.
     */
    public static final String ANONYMOUS_PLAN = "anonymous";

    /** A route no limit can name (route ids are not blank): resolves what applies to any unnamed route. */
    private static final String UNNAMED_ROUTE = "";

    private final RuleSet rules;
    private final LayeredMap<RuleScope, OwnRule> ownRules;
    private final Map<String, Resolved> plans;
    private final LayeredMap<String, String> tenantPlans;
    private final String defaultPlanName;
    private final Resolved defaultPlan;

    private PlanBook(RuleSet rules, LayeredMap<RuleScope, OwnRule> ownRules, Map<String, Resolved> plans,
                     LayeredMap<String, String> tenantPlans, String defaultPlanName) {
        this.rules = rules;
        this.ownRules = ownRules;
        this.plans = plans;
        this.tenantPlans = tenantPlans;
        this.defaultPlanName = defaultPlanName;
        Resolved named = plans.get(defaultPlanName);
        this.defaultPlan = new Resolved(named != null ? named.plan : syntheticDefault(rules.defaultRule()), true,
                named != null ? null : rules.defaultRule());
    }

    /** Today's rules alone: every request resolves to the rule {@link RuleSet#ruleFor} gives. */
    public static PlanBook of(RuleSet rules, String defaultPlanName) {
        return of(rules, List.of(), LayeredMap.empty(), defaultPlanName);
    }

    /**
     * @param rules           the tenants' own rules and the default rule
     * @param plans           the plans, with distinct names
     * @param tenantPlans     plan name by tenant; a name without a plan puts the tenant on the default
     * @param defaultPlanName the plan for tenants on none, when a plan of that name exists
     */
    public static PlanBook of(RuleSet rules, Collection<Plan> plans, LayeredMap<String, String> tenantPlans,
                              String defaultPlanName) {
        if (defaultPlanName == null || defaultPlanName.isBlank()) {
            throw new IllegalArgumentException("a default plan name is required");
        }
        Map<String, Resolved> byName = new HashMap<>();
        for (Plan plan : plans) {
            if (byName.put(plan.name(), new Resolved(plan, false, null)) != null) {
                throw new IllegalArgumentException("duplicate plan '" + plan.name() + "'");
            }
        }
        Map<RuleScope, OwnRule> own = new HashMap<>();
        rules.forEachRule((scope, rule) -> own.put(scope, OwnRule.of(scope, rule)));
        return new PlanBook(rules, LayeredMap.of(own), Map.copyOf(byName), tenantPlans, defaultPlanName);
    }

    /** This book with some rules put (present) or removed (empty); cost as {@link RuleSet#withChanges}. */
    public PlanBook withRuleChanges(Map<RuleScope, Optional<RateLimitRule>> changes) {
        if (changes.isEmpty()) {
            return this;
        }
        Map<RuleScope, Optional<OwnRule>> own = new HashMap<>();
        changes.forEach((scope, rule) -> own.put(scope, rule.map(r -> OwnRule.of(scope, r))));
        return new PlanBook(rules.withChanges(changes), ownRules.with(own), plans, tenantPlans, defaultPlanName);
    }

    /**
     * This book with some plans put (present) or removed (empty), by name. Copies the map of plans
     * (a few entries) and resolves the changed plans again; the tenants are not touched.
     */
    public PlanBook withPlanChanges(Map<String, Optional<Plan>> changes) {
        if (changes.isEmpty()) {
            return this;
        }
        Map<String, Resolved> next = new HashMap<>(plans);
        changes.forEach((name, plan) -> {
            if (plan.isPresent()) {
                if (!plan.get().name().equals(name)) {
                    throw new IllegalArgumentException("plan '" + plan.get().name() + "' put as '" + name + "'");
                }
                next.put(name, new Resolved(plan.get(), false, null));
            } else {
                next.remove(name);
            }
        });
        return new PlanBook(rules, ownRules, Map.copyOf(next), tenantPlans, defaultPlanName);
    }

    /** This book with some tenants put on a plan (present) or back on the default (empty). */
    public PlanBook withTenantPlanChanges(Map<String, Optional<String>> changes) {
        return changes.isEmpty() ? this
                : new PlanBook(rules, ownRules, plans, tenantPlans.with(changes), defaultPlanName);
    }

    @Override
    public AppliedLimits limitsFor(String tenant, String route) {
        Resolved plan = planOfTenant(tenant);
        OwnRule own = ownRules.get(new RuleScope(tenant, route));
        if (own == null) {
            own = ownRules.get(new RuleScope(tenant, ScopedRule.ANY_ROUTE));
            if (own == null) {
                return plan.alone(route);
            }
        }
        List<Applied> beside = plan.beside(route);
        if (beside.isEmpty()) {
            return new AppliedLimits(List.of(own.applied), own.rule);
        }
        List<Applied> applied = new ArrayList<>(1 + beside.size());
        applied.add(own.applied);
        applied.addAll(beside);
        return new AppliedLimits(applied, null);
    }

    /**
     * The plan {@code tenant} is on: its own if that plan exists, else the default plan. An anonymous
     * caller ({@link #ANONYMOUS_TENANT_PREFIX}) on no plan of its own is on {@link #ANONYMOUS_PLAN}
     * if that plan exists.
     */
    public Plan planOf(String tenant) {
        return planOfTenant(tenant).plan;
    }

    /** Whether {@code tenant} is on the default plan: on none, or on a plan name that does not exist. */
    public boolean onDefaultPlan(String tenant) {
        return planOfTenant(tenant).isDefault;
    }

    private Resolved planOfTenant(String tenant) {
        String name = tenantPlans.get(tenant);
        if (name == null) {
            if (!tenant.startsWith(ANONYMOUS_TENANT_PREFIX)) {
                return defaultPlan;
            }
            name = ANONYMOUS_PLAN; // one comparison more, for tenants on no plan only
        }
        Resolved plan = plans.get(name);
        return plan != null ? plan : defaultPlan;
    }

    public RuleSet rules() {
        return rules;
    }

    /** The plans, by name (the synthetic default plan not included). */
    public Map<String, Plan> plans() {
        Map<String, Plan> byName = new HashMap<>();
        plans.forEach((name, resolved) -> byName.put(name, resolved.plan));
        return Map.copyOf(byName);
    }

    public Optional<Plan> plan(String name) {
        Resolved plan = plans.get(name);
        return plan == null ? Optional.empty() : Optional.of(plan.plan);
    }

    /** Plan name by tenant, as stored: a name may not exist as a plan. */
    public LayeredMap<String, String> tenantPlans() {
        return tenantPlans;
    }

    public String defaultPlanName() {
        return defaultPlanName;
    }

    /** The default plan: the plan named {@link #defaultPlanName()}, or the one made of the default rule. */
    public Plan defaultPlan() {
        return defaultPlan.plan;
    }

    static Plan syntheticDefault(RateLimitRule defaultRule) {
        return new Plan(DEFAULT_LIMIT_NAME, List.of(new Limit(DEFAULT_LIMIT_NAME, LimitScope.eachRoute(),
                new TokenBucket(defaultRule.capacity(), defaultRule.refillPerSecond()), defaultRule.cost(),
                defaultRule.shadow())));
    }

    /** A tenant's own rule row as a limit, built once when the row is loaded. */
    private record OwnRule(Applied applied, RateLimitRule rule) {

        static OwnRule of(RuleScope scope, RateLimitRule rule) {
            return new OwnRule(new Applied(limitOf(scope.route(), rule), Source.TENANT), rule);
        }

        private static Limit limitOf(String route, RateLimitRule rule) {
            TokenBucket bucket = new TokenBucket(rule.capacity(), rule.refillPerSecond());
            LimitScope scope = LimitScope.eachRoute();
            if (!route.equals(ScopedRule.ANY_ROUTE)) {
                try {
                    scope = LimitScope.route(route);
                } catch (InvalidRuleException e) {
                    // A row's route the limit model refuses (over 256 characters, a control character):
                    // the row still applies to exactly its route, which is all the scope decides here
                    // (same group, same state key); only the scope reported differs.
                }
            }
            return new Limit(RULE_LIMIT_NAME, scope, bucket, rule.cost(), rule.shadow());
        }
    }

    /**
     * A plan resolved for every route: for a tenant without rules of its own ({@code alone}), and the
     * plan's limits that remain beside a tenant's own per-route bucket ({@code beside}); per route
     * its route-scope limits name, and once for all other routes.
     */
    private static final class Resolved {

        final Plan plan;
        final boolean isDefault;
        private final AppliedLimits aloneElsewhere;
        private final List<Applied> besideElsewhere;
        private final Map<String, AppliedLimits> aloneOnRoute;
        private final Map<String, List<Applied>> besideOnRoute;

        /** @param defaultRule the rule the plan is made of (the synthetic default plan), else null */
        Resolved(Plan plan, boolean isDefault, RateLimitRule defaultRule) {
            this.plan = plan;
            this.isDefault = isDefault;
            Plan none = new Plan("own", List.of());
            Plan ownBucket = new Plan("own", List.of(
                    new Limit(RULE_LIMIT_NAME, LimitScope.eachRoute(), new TokenBucket(1, 1))));
            Set<String> named = new HashSet<>();
            for (Limit limit : plan.limits()) {
                if (limit.scope().kind() == LimitScope.Kind.ROUTE) {
                    named.add(limit.scope().route());
                }
            }
            Map<String, AppliedLimits> alone = new HashMap<>();
            Map<String, List<Applied>> beside = new HashMap<>();
            for (String route : named) {
                alone.put(route, applied(LimitPrecedence.resolve(none, plan, isDefault, route), defaultRule));
                beside.put(route, withoutFirst(LimitPrecedence.resolve(ownBucket, plan, isDefault, route)));
            }
            this.aloneOnRoute = Map.copyOf(alone);
            this.besideOnRoute = Map.copyOf(beside);
            this.aloneElsewhere = applied(LimitPrecedence.resolve(none, plan, isDefault, UNNAMED_ROUTE), defaultRule);
            this.besideElsewhere = withoutFirst(LimitPrecedence.resolve(ownBucket, plan, isDefault, UNNAMED_ROUTE));
        }

        AppliedLimits alone(String route) {
            if (aloneOnRoute.isEmpty()) {
                return aloneElsewhere;
            }
            AppliedLimits onRoute = aloneOnRoute.get(route);
            return onRoute != null ? onRoute : aloneElsewhere;
        }

        List<Applied> beside(String route) {
            if (besideOnRoute.isEmpty()) {
                return besideElsewhere;
            }
            List<Applied> onRoute = besideOnRoute.get(route);
            return onRoute != null ? onRoute : besideElsewhere;
        }

        private static List<Applied> withoutFirst(List<Applied> resolved) {
            return List.copyOf(resolved.subList(1, resolved.size()));
        }

        private static AppliedLimits applied(List<Applied> limits, RateLimitRule defaultRule) {
            if (limits.size() != 1) {
                return new AppliedLimits(limits, null);
            }
            Limit limit = limits.get(0).limit();
            if (!(limit.allowance() instanceof TokenBucket bucket) || limit.scope().kind() == LimitScope.Kind.TENANT) {
                return new AppliedLimits(limits, null);
            }
            RateLimitRule rule = defaultRule != null ? defaultRule
                    : new RateLimitRule(bucket.capacity(), bucket.refillPerSecond(), limit.cost(), limit.shadow());
            return new AppliedLimits(limits, rule);
        }
    }
}
