package dev.tollgate.core.limits;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link LimitBook} over today's {@link RuleBook}: every request is on the single-bucket path with
 * {@link RuleBook#ruleFor}'s rule, exactly as before plans existed. Used until a source of plans
 * supplies a {@code LimitBook} of its own, and by applications that keep only rules.
 *
 * <p>The rule is reported as one {@code each-route} token bucket named {@value #LIMIT_NAME} from the
 * {@link LimitPrecedence.Source#TENANT tenant}'s rules (the adapter cannot tell a tenant's own row
 * from the default rule: both come out of {@code ruleFor}). The answer for a rule is built once and
 * kept, so that a lookup allocates nothing: rule books hand out the same few rule objects, and at
 * most {@value #MAX_CACHED} distinct rules are kept (equal rules share one entry; past that the
 * cache starts again, which costs a few allocations per distinct rule until it is warm again, about
 * 13 MB at most).
 */
public final class RuleBookLimits implements LimitBook {

    /** The name of the one limit of a rule. */
    public static final String LIMIT_NAME = "rule";

    static final int MAX_CACHED = 65_536;

    private final RuleBook rules;
    private final ConcurrentHashMap<RateLimitRule, AppliedLimits> answers = new ConcurrentHashMap<>();

    public RuleBookLimits(RuleBook rules) {
        this.rules = Objects.requireNonNull(rules, "rules");
    }

    @Override
    public AppliedLimits limitsFor(String tenant, String route) {
        RateLimitRule rule = rules.ruleFor(tenant, route);
        AppliedLimits answer = answers.get(rule);
        if (answer != null) {
            return answer;
        }
        if (answers.size() >= MAX_CACHED) {
            answers.clear();
        }
        return answers.computeIfAbsent(rule, RuleBookLimits::applied);
    }

    /** The rules this book reads. */
    public RuleBook rules() {
        return rules;
    }

    /** A rule as the one limit it is, on the single-bucket path. */
    public static AppliedLimits applied(RateLimitRule rule) {
        Limit limit = new Limit(LIMIT_NAME, LimitScope.eachRoute(),
                new TokenBucket(rule.capacity(), rule.refillPerSecond()), rule.cost(), rule.shadow());
        return new AppliedLimits(List.of(new LimitPrecedence.Applied(limit, LimitPrecedence.Source.TENANT)), rule);
    }
}
