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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Building the rule set of 100,000 rules held in memory: the immutable {@link RuleSet}
 * (validation, the duplicate check, the map of maps), the last step of every load.
 *
 * <p>Reading rules (and API keys) from PostgreSQL and building the snapshot from them, the whole
 * load an instance makes at start and on every full reload, is {@link DirectoryLoadBenchmark}: a
 * different operation, about a second long, measured in single-shot mode, so not a parameter of
 * this one. Both use the rules of {@link #generated}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class RuleLoadBenchmark {

    public static final int RULES = 100_000;
    private static final String[] ROUTES = {"create-order", "list-orders", "catalog"};

    private List<ScopedRule> rules;
    private final RateLimitRule defaultRule = RateLimitRule.of(20, 10);

    @Setup
    public void generateRules() {
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
