package dev.tollgate.bench.jmh;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Loading 100,000 rules: what an instance does at start and on every refresh. For now the rules
 * come from memory ({@code source = "generated"}) and the time is that of building the immutable
 * {@link RuleSet} (validation, the duplicate check, the map of maps).
 *
 * <p>Hook for PostgreSQL: when rules are read from {@code rate_limit_rule}, add {@code "postgres"}
 * to {@link #source} and read them in {@link #loadRules()} from an embedded PostgreSQL filled with
 * the same rules; the benchmark then measures the query plus the build.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class RuleLoadBenchmark {

    public static final int RULES = 100_000;
    private static final String[] ROUTES = {"create-order", "list-orders", "catalog"};

    @Param({"generated"})
    public String source;

    private List<ScopedRule> rules;
    private final RateLimitRule defaultRule = RateLimitRule.of(20, 10);

    @Setup
    public void loadRules() {
        if (!"generated".equals(source)) {
            throw new IllegalArgumentException("unknown rule source " + source);
        }
        rules = generated(RULES);
    }

    /** {@code count} rules: tenants with one rule on each of three routes, varied limits. */
    public static List<ScopedRule> generated(int count) {
        List<ScopedRule> rules = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rules.add(new ScopedRule("tenant-" + (i / ROUTES.length), ROUTES[i % ROUTES.length],
                    RateLimitRule.of(10 + i % 1000, (10 + i % 500) / 10.0)));
        }
        return rules;
    }

    @Benchmark
    public RuleSet buildRuleSet() {
        return RuleSet.of(defaultRule, rules);
    }
}
