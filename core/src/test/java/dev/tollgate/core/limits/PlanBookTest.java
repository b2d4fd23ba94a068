package dev.tollgate.core.limits;

import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.core.limits.LimitPrecedence.Applied;
import dev.tollgate.core.limits.LimitPrecedence.Source;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The issue's examples, the equivalence with today's rules when there are no plans, and a differential check. */
class PlanBookTest {

    private static final RateLimitRule DEFAULT_RULE = new RateLimitRule(50, 5, 1, false, 3);
    private static final Plan FREE = new Plan("free", List.of(
            new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10)),
            new Limit("day", LimitScope.tenant(), new CalendarQuota(10_000, QuotaPeriod.DAY))));
    private static final Plan SHOP = new Plan("shop", List.of(
            new Limit("orders", LimitScope.route("create-order"), new TokenBucket(100, 100)),
            new Limit("total", LimitScope.tenant(), new TokenBucket(500, 500))));
    private static final Plan SIMPLE = new Plan("simple", List.of(
            new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10), 2, true)));

    private static PlanBook book(List<ScopedRule> rules, Map<String, String> tenantPlans) {
        return PlanBook.of(RuleSet.of(DEFAULT_RULE, rules), List.of(FREE, SHOP, SIMPLE), LayeredMap.of(tenantPlans),
                "default");
    }

    private static List<String> names(AppliedLimits applied) {
        return applied.limits().stream().map(a -> a.limit().name() + "@" + a.source()).toList();
    }

    @Test
    void theFreeTierIsARatePerRouteAndADayQuotaOnTheMultiLimitPath() {
        PlanBook book = book(List.of(), Map.of("t1", "free"));
        AppliedLimits applied = book.limitsFor("t1", "search");
        assertThat(names(applied)).containsExactly("rate@PLAN", "day@PLAN");
        assertThat(applied.singleBucket()).isNull();
        assertThat(book.planOf("t1")).isEqualTo(FREE);
        assertThat(book.onDefaultPlan("t1")).isFalse();
    }

    @Test
    void shopAHasARateOnCreateOrderAndATenantTotal() {
        PlanBook book = book(List.of(), Map.of("shop-a", "shop"));
        assertThat(names(book.limitsFor("shop-a", "create-order"))).containsExactly("orders@PLAN", "total@PLAN");
        assertThat(names(book.limitsFor("shop-a", "list-orders"))).containsExactly("total@PLAN");
        assertThat(book.limitsFor("shop-a", "list-orders").singleBucket())
                .as("a tenant-wide bucket is never the single-bucket path").isNull();
    }

    @Test
    void aTenantRuleReplacesOnlyItsGroup() {
        RateLimitRule orders = new RateLimitRule(200, 100, 1, false, 4);
        PlanBook book = book(List.of(new ScopedRule("t1", "create-order", orders)), Map.of("t1", "free"));
        AppliedLimits applied = book.limitsFor("t1", "create-order");
        assertThat(names(applied)).containsExactly("rule@TENANT", "day@PLAN");
        assertThat(applied.limits().get(0).limit().scope()).isEqualTo(LimitScope.route("create-order"));
        assertThat(applied.singleBucket()).isNull();
        assertThat(names(book.limitsFor("t1", "search"))).containsExactly("rate@PLAN", "day@PLAN");
    }

    @Test
    void aTenantRuleOnAPlanOfOneBucketIsTheSingleBucketPathWithTheRowsRuleAndShards() {
        RateLimitRule everyRoute = new RateLimitRule(30, 3, 1, false, 8);
        PlanBook book = book(List.of(new ScopedRule("t1", "*", everyRoute)), Map.of("t1", "simple"));
        AppliedLimits applied = book.limitsFor("t1", "search");
        assertThat(names(applied)).containsExactly("rule@TENANT");
        assertThat(applied.limits().get(0).limit().scope()).isEqualTo(LimitScope.eachRoute());
        assertThat(applied.singleBucket()).isSameAs(everyRoute);
    }

    @Test
    void aShadowPlanLimitAloneIsTheSingleBucketPathAsAShadowRule() {
        PlanBook book = book(List.of(), Map.of("t1", "simple"));
        AppliedLimits applied = book.limitsFor("t1", "search");
        assertThat(names(applied)).containsExactly("rate@PLAN");
        assertThat(applied.singleBucket()).isEqualTo(new RateLimitRule(20, 10, 2, true));
    }

    @Test
    void aShadowTenantRuleReplacesThePlansRateAndLeavesTheQuota() {
        RateLimitRule trial = new RateLimitRule(5, 1, 1, true);
        PlanBook book = book(List.of(new ScopedRule("t1", "*", trial)), Map.of("t1", "free"));
        AppliedLimits applied = book.limitsFor("t1", "search");
        assertThat(names(applied)).containsExactly("rule@TENANT", "day@PLAN");
        assertThat(applied.limits().get(0).limit().shadow()).isTrue();
    }

    @Test
    void anUnknownPlanNameIsTheDefaultPlan() {
        PlanBook book = book(List.of(), Map.of("t1", "gold"));
        AppliedLimits applied = book.limitsFor("t1", "search");
        assertThat(names(applied)).containsExactly("default@DEFAULT_PLAN");
        assertThat(applied.singleBucket()).isSameAs(DEFAULT_RULE);
        assertThat(book.onDefaultPlan("t1")).isTrue();
    }

    @Test
    void anonymousCallersAreOnThePlanNamedAnonymousElseOnTheDefaultPlan() {
        Plan anonymous = new Plan(PlanBook.ANONYMOUS_PLAN, List.of(
                new Limit("per-address", LimitScope.eachRoute(), new TokenBucket(5, 1)),
                new Limit("hour", LimitScope.tenant(), new CalendarQuota(100, QuotaPeriod.HOUR))));
        PlanBook without = book(List.of(), Map.of());
        assertThat(names(without.limitsFor("anon:198.51.100.7/32", "search"))).containsExactly("default@DEFAULT_PLAN");
        assertThat(without.onDefaultPlan("anon:198.51.100.7/32")).isTrue();

        PlanBook with = without.withPlanChanges(Map.of(PlanBook.ANONYMOUS_PLAN, Optional.of(anonymous)));
        assertThat(names(with.limitsFor("anon:198.51.100.7/32", "search"))).containsExactly("per-address@PLAN", "hour@PLAN");
        assertThat(with.planOf("anon:2001:db8::/64")).isEqualTo(anonymous);
        assertThat(with.onDefaultPlan("anon:2001:db8::/64")).isFalse();
        assertThat(names(with.limitsFor("shop-a", "search"))).as("keyed tenants are not anonymous")
                .containsExactly("default@DEFAULT_PLAN");
        assertThat(names(with.limitsFor("anonymous", "search"))).containsExactly("default@DEFAULT_PLAN");
        PlanBook pinned = with.withTenantPlanChanges(Map.of("anon:198.51.100.7/32", Optional.of("free")));
        assertThat(pinned.planOf("anon:198.51.100.7/32")).as("a plan of its own wins").isEqualTo(FREE);
    }

    @Test
    void aPlanNamedAsTheDefaultPlanIsTheDefaultPlan() {
        PlanBook book = PlanBook.of(RuleSet.of(DEFAULT_RULE, List.of()), List.of(FREE), LayeredMap.empty(), "free");
        assertThat(names(book.limitsFor("anyone", "search"))).containsExactly("rate@DEFAULT_PLAN", "day@DEFAULT_PLAN");
        assertThat(book.defaultPlan()).isEqualTo(FREE);
        PlanBook removed = book.withPlanChanges(Map.of("free", Optional.empty()));
        assertThat(removed.limitsFor("anyone", "search").singleBucket()).isSameAs(DEFAULT_RULE);
    }

    @Test
    void changesReachTenantsOnThePlan() {
        PlanBook book = book(List.of(), Map.of("t1", "free", "t2", "free"));
        Plan faster = new Plan("free", List.of(new Limit("rate", LimitScope.eachRoute(), new TokenBucket(40, 20))));
        PlanBook changed = book.withPlanChanges(Map.of("free", Optional.of(faster)));
        assertThat(changed.limitsFor("t2", "search").singleBucket()).isEqualTo(RateLimitRule.of(40, 20));
        assertThat(book.limitsFor("t2", "search").singleBucket()).as("the old book is unchanged").isNull();

        PlanBook moved = changed.withTenantPlanChanges(Map.of("t1", Optional.empty()));
        assertThat(moved.limitsFor("t1", "search").singleBucket()).isSameAs(DEFAULT_RULE);
        PlanBook ruled = moved.withRuleChanges(Map.of(new RuleScope("t2", "search"), Optional.of(RateLimitRule.of(7, 7))));
        assertThat(ruled.limitsFor("t2", "search").singleBucket()).isEqualTo(RateLimitRule.of(7, 7));
        assertThat(ruled.rules().ruleFor("t2", "search")).isEqualTo(RateLimitRule.of(7, 7));
    }

    @Test
    void withNoPlansEveryRequestResolvesToTheRuleItResolvesToToday() {
        forAll(200, random -> {
            List<ScopedRule> rows = randomRows(random);
            RuleSet rules = RuleSet.of(randomRule(random), rows);
            Map<String, String> tenantPlans = random.nextBoolean() ? Map.of() : Map.of("t0", "missing");
            PlanBook book = PlanBook.of(rules, List.of(), LayeredMap.of(tenantPlans), "default");
            for (int tenant = 0; tenant < 5; tenant++) {
                for (int route = 0; route < 5; route++) {
                    String t = "t" + tenant;
                    String r = "r" + route;
                    AppliedLimits applied = book.limitsFor(t, r);
                    assertThat(applied.singleBucket()).as("%s on %s", t, r).isSameAs(rules.ruleFor(t, r));
                    assertThat(applied.limits()).hasSize(1);
                    Limit limit = applied.limits().get(0).limit();
                    RateLimitRule rule = rules.ruleFor(t, r);
                    assertThat(limit.allowance()).isEqualTo(new TokenBucket(rule.capacity(), rule.refillPerSecond()));
                    assertThat(limit.cost()).isEqualTo(rule.cost());
                    assertThat(limit.shadow()).isEqualTo(rule.shadow());
                }
            }
        });
    }

    @Test
    void everyAnswerIsThePrecedenceOfTheTenantsRuleAndPlan() {
        forAll(200, random -> {
            List<ScopedRule> rows = randomRows(random);
            RuleSet rules = RuleSet.of(randomRule(random), rows);
            List<Plan> plans = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                plans.add(randomPlan(random, "p" + i));
            }
            Map<String, String> tenantPlans = new HashMap<>();
            for (int tenant = 0; tenant < 5; tenant++) {
                int pick = random.nextInt(5);
                if (pick < 4) {
                    tenantPlans.put("t" + tenant, "p" + pick); // p3: no such plan
                }
            }
            String defaultPlanName = "p" + random.nextInt(5);
            PlanBook book = PlanBook.of(rules, plans, LayeredMap.of(tenantPlans), defaultPlanName);
            for (int tenant = 0; tenant < 5; tenant++) {
                for (int route = 0; route < 5; route++) {
                    String t = "t" + tenant;
                    String r = "r" + route;
                    RateLimitRule ownRule = rules.ruleAt(t, r) != null ? rules.ruleAt(t, r) : rules.ruleAt(t, "*");
                    Plan own = ownRule == null ? new Plan("own", List.of()) : new Plan("own", List.of(new Limit("rule",
                            rules.ruleAt(t, r) != null ? LimitScope.route(r) : LimitScope.eachRoute(),
                            new TokenBucket(ownRule.capacity(), ownRule.refillPerSecond()), ownRule.cost(), ownRule.shadow())));
                    Plan named = plans.stream().filter(p -> p.name().equals(tenantPlans.get(t))).findFirst().orElse(null);
                    Plan fallback = plans.stream().filter(p -> p.name().equals(defaultPlanName)).findFirst()
                            .orElse(PlanBook.syntheticDefault(rules.defaultRule()));
                    List<Applied> expected = LimitPrecedence.resolve(own, named != null ? named : fallback, named == null, r);

                    AppliedLimits applied = book.limitsFor(t, r);
                    assertThat(applied.limits()).as("%s on %s", t, r).isEqualTo(expected);
                    boolean single = expected.size() == 1 && expected.get(0).limit().allowance() instanceof TokenBucket
                            && expected.get(0).limit().scope().kind() != LimitScope.Kind.TENANT;
                    assertThat(applied.onSingleBucketPath()).isEqualTo(single);
                    if (single && expected.get(0).source() == Source.TENANT) {
                        assertThat(applied.singleBucket()).isSameAs(ownRule);
                    }
                }
            }
        });
    }

    private static List<ScopedRule> randomRows(SplittableRandom random) {
        List<ScopedRule> rows = new ArrayList<>();
        for (int tenant = 0; tenant < 5; tenant++) {
            for (String route : List.of("*", "r0", "r1", "r2")) {
                if (random.nextInt(4) == 0) {
                    rows.add(new ScopedRule("t" + tenant, route, randomRule(random)));
                }
            }
        }
        return rows;
    }

    private static RateLimitRule randomRule(SplittableRandom random) {
        long capacity = 1 + random.nextInt(100);
        return new RateLimitRule(capacity, (1 + random.nextInt(10_000)) / 1000d, 1 + random.nextLong(capacity),
                random.nextInt(5) == 0, 1 + random.nextInt(4));
    }

    private static Plan randomPlan(SplittableRandom random, String name) {
        List<Limit> limits = new ArrayList<>();
        int count = random.nextInt(4);
        for (int i = 0; i < count; i++) {
            LimitScope scope = switch (random.nextInt(3)) {
                case 0 -> LimitScope.route("r" + random.nextInt(3));
                case 1 -> LimitScope.eachRoute();
                default -> LimitScope.tenant();
            };
            Allowance allowance = random.nextBoolean() ? new TokenBucket(1 + random.nextInt(100), 1 + random.nextInt(50))
                    : new CalendarQuota(1 + random.nextInt(1000), QuotaPeriod.values()[random.nextInt(4)]);
            String limitName = random.nextInt(5) == 0 ? "rule" : "l" + i;
            if (limits.stream().noneMatch(l -> l.name().equals(limitName))) {
                limits.add(new Limit(limitName, scope, allowance, 1, random.nextInt(5) == 0));
            }
        }
        return new Plan(name, limits);
    }
}
