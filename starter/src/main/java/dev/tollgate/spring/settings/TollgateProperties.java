package dev.tollgate.spring.settings;

import dev.tollgate.core.InvalidRuleException;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.Plan;
import dev.tollgate.core.limits.PlanBook;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings under {@code tollgate.*}. Immutable and checked when bound: a bad value stops the
 * gateway at start with the property's name and value, never at the first request.
 *
 * @param enabled      Whether the rate limiter runs at all; false routes every request unlimited, reads no rules
 *                     or API keys (no database needed; the admin API is off), opens no Redis connection and
 *                     sends no heartbeat (the instance is not counted among those the local fallback shares
 *                     limits with).
 * @param globalFilter The global filter that limits every routed request by its API key.
 * @param source       Where rules and API keys come from: database (PostgreSQL, spring.datasource.*) or static
 *                     (tollgate.rules, and the API key is taken as the tenant's name: for trials and benchmarks
 *                     only, anyone can spend anyone's quota).
 * @param apiKeyHeader Request header that carries the tenant's API key.
 * @param defaultRule  The rule for every tenant and route without one of its own, as the default plan's one
 *                     limit (each route its own bucket) while no plan is named tollgate.default-plan.
 * @param defaultPlan  The plan of every tenant on none (or on a plan that cannot be read), once a plan of this
 *                     name exists; until then the default plan is tollgate.default-rule.
 * @param rules        With source static: rules for a tenant on a route, or on every route of the tenant
 *                     (route "*").
 * @param plans        With source static: plans by name, each a list of limits.
 * @param tenantPlans  With source static: the plan of each tenant on one, by tenant.
 */
@ConfigurationProperties("tollgate")
public record TollgateProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue GlobalFilter globalFilter,
        @DefaultValue("database") Source source,
        @DefaultValue("X-Api-Key") String apiKeyHeader,
        @DefaultValue RuleProperties defaultRule,
        @DefaultValue("default") String defaultPlan,
        @DefaultValue List<ScopedRuleProperties> rules,
        @DefaultValue Map<String, List<LimitProperties>> plans,
        @DefaultValue Map<String, String> tenantPlans) {

    public TollgateProperties {
        if (apiKeyHeader == null || apiKeyHeader.isBlank()) {
            throw new InvalidSettingException("tollgate.api-key-header", apiKeyHeader,
                    "tollgate.api-key-header must not be blank");
        }
        if (defaultPlan == null || defaultPlan.isBlank()) {
            throw new InvalidSettingException("tollgate.default-plan", defaultPlan,
                    "tollgate.default-plan must not be blank");
        }
        rules = List.copyOf(rules);
        plans = Map.copyOf(plans);
        tenantPlans = Map.copyOf(tenantPlans);
        ruleSet(defaultRule, rules); // fail now, naming the bad entry
        planBook(ruleSet(defaultRule, rules), plans, tenantPlans, defaultPlan);
    }

    /**
     * @param enabled Whether every routed request is limited by its API key; false when the application limits
     *                chosen routes through Spring Cloud Gateway's RequestRateLimiter filter and
     *                #{@tollgateRateLimiter} instead.
     */
    public record GlobalFilter(@DefaultValue("true") boolean enabled) {
    }

    /** Where rules and API keys come from. */
    public enum Source {
        DATABASE,
        STATIC
    }

    /** The configured default rule. */
    public RateLimitRule defaultRateLimitRule() {
        return defaultRule.toRule("tollgate.default-rule");
    }

    /** The configured rules, ready for lookups. */
    public RuleSet ruleSet() {
        return ruleSet(defaultRule, rules);
    }

    /** The configured rules, plans and tenants' plans, with the default plan, ready for lookups. */
    public PlanBook planBook() {
        return planBook(ruleSet());
    }

    /** The configured plans and tenants' plans over {@code rules} (an application's own rule set). */
    public PlanBook planBook(RuleSet rules) {
        return planBook(rules, plans, tenantPlans, defaultPlan);
    }

    private static PlanBook planBook(RuleSet rules, Map<String, List<LimitProperties>> plans,
                                     Map<String, String> tenantPlans, String defaultPlan) {
        List<Plan> built = new ArrayList<>(plans.size());
        for (Map.Entry<String, List<LimitProperties>> entry : new TreeMap<>(plans).entrySet()) {
            String path = "tollgate.plans." + entry.getKey();
            List<Limit> limits = new ArrayList<>(entry.getValue().size());
            for (int i = 0; i < entry.getValue().size(); i++) {
                limits.add(entry.getValue().get(i).toLimit(path + "[" + i + "]"));
            }
            try {
                built.add(new Plan(entry.getKey(), limits));
            } catch (InvalidRuleException e) {
                throw new InvalidSettingException(path, null, path + ": " + e.getMessage());
            }
        }
        for (Map.Entry<String, String> entry : new TreeMap<>(tenantPlans).entrySet()) {
            if (!plans.containsKey(entry.getValue())) {
                String setting = "tollgate.tenant-plans." + entry.getKey();
                throw new InvalidSettingException(setting, entry.getValue(), setting + " names plan '"
                        + entry.getValue() + "', which tollgate.plans does not declare");
            }
        }
        return PlanBook.of(rules, built, LayeredMap.of(tenantPlans), defaultPlan);
    }

    private static RuleSet ruleSet(RuleProperties defaultRule, List<ScopedRuleProperties> rules) {
        RateLimitRule fallback = defaultRule.toRule("tollgate.default-rule");
        List<ScopedRule> scoped = new ArrayList<>(rules.size());
        for (int i = 0; i < rules.size(); i++) {
            scoped.add(rules.get(i).toScopedRule("tollgate.rules[" + i + "]"));
        }
        try {
            return RuleSet.of(fallback, scoped);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("tollgate.rules", null, "tollgate.rules: " + e.getMessage());
        }
    }

    /**
     * A limit: burst {@code capacity}, refilled at {@code refillPerSecond}, each request costing
     * {@code cost} tokens.
     *
     * @param capacity        Burst size, in tokens (1 to 1000000000).
     * @param refillPerSecond Tokens added per second; fractional down to 0.001 (three decimals at most).
     * @param cost            Tokens one request takes (1 to the capacity).
     */
    public record RuleProperties(
            @DefaultValue("20") long capacity,
            @DefaultValue("10") double refillPerSecond,
            @DefaultValue("1") long cost) {

        RateLimitRule toRule(String path) {
            try {
                return new RateLimitRule(capacity, refillPerSecond, cost);
            } catch (InvalidRuleException e) {
                throw InvalidSettingException.ofRule(path, e, switch (e.field()) {
                    case "capacity" -> capacity;
                    case "refillPerSecond" -> refillPerSecond;
                    default -> cost;
                });
            }
        }
    }

    /**
     * A limit for one tenant on one route.
     *
     * @param tenant          The tenant.
     * @param route           The route id, or "*" for every route of the tenant.
     * @param capacity        Burst size, in tokens.
     * @param refillPerSecond Tokens added per second (at most three decimals).
     * @param cost            Tokens one request takes.
     * @param shadow          A dry run: counted and logged, never rejects.
     * @param shards          Sub-buckets the bucket is split into, spread over Redis Cluster nodes (1 to 64).
     */
    public record ScopedRuleProperties(
            String tenant,
            String route,
            long capacity,
            double refillPerSecond,
            @DefaultValue("1") long cost,
            @DefaultValue("false") boolean shadow,
            @DefaultValue("1") int shards) {

        ScopedRule toScopedRule(String path) {
            RateLimitRule rule;
            try {
                rule = new RateLimitRule(capacity, refillPerSecond, cost, shadow, shards);
            } catch (InvalidRuleException e) {
                throw InvalidSettingException.ofRule(path, e, switch (e.field()) {
                    case "capacity" -> capacity;
                    case "refillPerSecond" -> refillPerSecond;
                    case "cost" -> cost;
                    default -> shards;
                });
            }
            try {
                return new ScopedRule(tenant, route, rule);
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException(path, null, path + ": " + e.getMessage());
            }
        }
    }

    /**
     * A limit of a plan, with the fields and meaning of the admin API's limits (docs/rules-and-keys.md):
     * either capacity and refill-per-second (a token bucket) or quota and period (a calendar quota).
     *
     * @param name            How answers, headers and metrics name the limit.
     * @param scope           route (one route, named by route), each-route (a bucket per route) or tenant (one
     *                        for all the tenant's routes).
     * @param route           The route id, with scope route only.
     * @param capacity        A token bucket's burst size, in tokens.
     * @param refillPerSecond A token bucket's tokens added per second (at most three decimals).
     * @param quota           A calendar quota: requests (units of cost) per period.
     * @param period          A calendar quota's period: minute, hour, day or month.
     * @param zone            A calendar quota's time zone (UTC unless set), such as Europe/Berlin.
     * @param cost            What one request takes (1 unless set).
     * @param shadow          A dry run: counted and reported, never rejects.
     */
    public record LimitProperties(
            String name,
            String scope,
            String route,
            Long capacity,
            Double refillPerSecond,
            Long quota,
            String period,
            String zone,
            @DefaultValue("1") long cost,
            @DefaultValue("false") boolean shadow) {

        Limit toLimit(String path) {
            try {
                boolean bucket = capacity != null || refillPerSecond != null;
                boolean calendar = quota != null || period != null || zone != null;
                if (bucket && calendar) {
                    throw new InvalidRuleException(capacity != null ? "capacity" : "refillPerSecond",
                            "cannot be set with quota, period or zone: a limit is a token bucket (capacity,"
                                    + " refill-per-second) or a quota (quota, period, zone), not both");
                }
                if (!bucket && !calendar) {
                    throw new InvalidRuleException("capacity", "is required: a limit is a token bucket (capacity,"
                            + " refill-per-second) or a quota (quota, period, zone)");
                }
                LimitScope limitScope = new LimitScope(LimitScope.Kind.parse(scope), route);
                if (bucket) {
                    if (capacity == null) {
                        throw new InvalidRuleException("capacity", "is required with refill-per-second");
                    }
                    if (refillPerSecond == null) {
                        throw new InvalidRuleException("refillPerSecond", "is required with capacity");
                    }
                    return new Limit(name, limitScope, new TokenBucket(capacity, refillPerSecond), cost, shadow);
                }
                if (quota == null) {
                    throw new InvalidRuleException("quota", "is required with period");
                }
                return new Limit(name, limitScope,
                        new CalendarQuota(quota, QuotaPeriod.parse(period), CalendarQuota.parseZone(zone)), cost, shadow);
            } catch (InvalidRuleException e) {
                throw InvalidSettingException.ofRule(path, e, switch (e.field()) {
                    case "name" -> name;
                    case "scope" -> scope;
                    case "route" -> route;
                    case "capacity" -> capacity;
                    case "refillPerSecond" -> refillPerSecond;
                    case "quota" -> quota;
                    case "period" -> period;
                    case "zone" -> zone;
                    default -> cost;
                });
            }
        }
    }
}
