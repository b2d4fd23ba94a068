package dev.tollgate.gateway.config;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings under {@code tollgate.*}. Immutable and checked when bound: a bad value stops the
 * gateway at start with the property's name and value, never at the first request.
 *
 * @param source       where rules and API keys come from: {@code database} (PostgreSQL, the default)
 *                     or {@code static} ({@code tollgate.rules}, and the API key is the tenant's
 *                     name, as in the seed: for trials and benchmarks only, anyone can spend anyone's
 *                     quota)
 * @param apiKeyHeader the request header that carries the tenant's API key
 * @param defaultRule  the rule for any tenant and route without one of its own
 * @param rules        with {@code source: static}: rules for a tenant on a route, or on every route
 *                     ({@code route: "*"})
 */
@ConfigurationProperties("tollgate")
public record TollgateProperties(
        @DefaultValue("database") Source source,
        @DefaultValue("X-Api-Key") String apiKeyHeader,
        @DefaultValue RuleProperties defaultRule,
        @DefaultValue List<ScopedRuleProperties> rules) {

    public TollgateProperties {
        if (apiKeyHeader == null || apiKeyHeader.isBlank()) {
            throw new IllegalArgumentException("tollgate.api-key-header must not be blank");
        }
        rules = List.copyOf(rules);
        ruleSet(defaultRule, rules); // fail now, naming the bad entry
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

    private static RuleSet ruleSet(RuleProperties defaultRule, List<ScopedRuleProperties> rules) {
        RateLimitRule fallback = defaultRule.toRule("tollgate.default-rule");
        List<ScopedRule> scoped = new ArrayList<>(rules.size());
        for (int i = 0; i < rules.size(); i++) {
            scoped.add(rules.get(i).toScopedRule("tollgate.rules[" + i + "]"));
        }
        try {
            return RuleSet.of(fallback, scoped);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tollgate.rules: " + e.getMessage(), e);
        }
    }

    /**
     * A limit: burst {@code capacity}, refilled at {@code refillPerSecond}, each request costing
     * {@code cost} tokens. The defaults are the seed's default rule (20, 10/s, 1).
     */
    public record RuleProperties(
            @DefaultValue("20") long capacity,
            @DefaultValue("10") double refillPerSecond,
            @DefaultValue("1") long cost) {

        RateLimitRule toRule(String path) {
            try {
                return new RateLimitRule(capacity, refillPerSecond, cost);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * A limit for one tenant on one route ({@code "*"}: every route of the tenant); {@code shadow}
     * makes it a dry run that counts but never rejects; {@code shards} splits its bucket.
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
            try {
                return new ScopedRule(tenant, route,
                        new RateLimitRule(capacity, refillPerSecond, cost, shadow, shards));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
            }
        }
    }
}
