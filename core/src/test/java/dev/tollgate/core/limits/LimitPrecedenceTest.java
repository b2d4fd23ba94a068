package dev.tollgate.core.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.limits.LimitPrecedence.Applied;
import dev.tollgate.core.limits.LimitPrecedence.Source;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Worked examples of the precedence (docs/rules-and-keys.md, "Plans"). */
class LimitPrecedenceTest {

    private static final Plan FREE = new Plan("free", List.of(
            new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10)),
            new Limit("day", LimitScope.tenant(), new CalendarQuota(10_000, QuotaPeriod.DAY))));
    private static final Plan NONE = new Plan("shop-a", List.of());

    private static List<String> resolved(Plan own, String route) {
        return LimitPrecedence.resolve(own, FREE, false, route).stream()
                .map(a -> a.limit().name() + "@" + a.source()).toList();
    }

    @Test
    void aTenantWithNoRulesGetsItsPlan() {
        assertThat(resolved(NONE, "create-order")).containsExactly("rate@PLAN", "day@PLAN");
        assertThat(LimitPrecedence.resolve(NONE, FREE, true, "create-order"))
                .extracting(Applied::source).containsOnly(Source.DEFAULT_PLAN);
    }

    @Test
    void aRouteRuleReplacesThePlansRateOnThatRouteAndKeepsItsQuota() {
        Plan own = new Plan("shop-a", List.of(new Limit("rule", LimitScope.route("create-order"), new TokenBucket(200, 100))));
        assertThat(resolved(own, "create-order")).containsExactly("rule@TENANT", "day@PLAN");
        assertThat(resolved(own, "list-orders")).containsExactly("rate@PLAN", "day@PLAN");
    }

    @Test
    void aTenantTotalAddsToThePlansPerRouteRate() {
        Plan own = new Plan("shop-a", List.of(new Limit("total", LimitScope.tenant(), new TokenBucket(1000, 500))));
        assertThat(resolved(own, "create-order")).containsExactly("total@TENANT", "rate@PLAN", "day@PLAN");
    }

    @Test
    void aTenantsOwnQuotaReplacesThePlansAndItsOwnRouteRuleBeatsItsEachRouteRule() {
        Plan own = new Plan("shop-a", List.of(
                new Limit("all-routes", LimitScope.eachRoute(), new TokenBucket(50, 25)),
                new Limit("orders", LimitScope.route("create-order"), new TokenBucket(200, 100)),
                new Limit("big-day", LimitScope.tenant(), new CalendarQuota(50_000, QuotaPeriod.DAY))));
        assertThat(resolved(own, "create-order")).containsExactly("orders@TENANT", "big-day@TENANT");
        assertThat(resolved(own, "list-orders")).containsExactly("all-routes@TENANT", "big-day@TENANT");
    }

    @Test
    void aShadowRuleReplacesItsGroupAsTodaysShadowRulesDo() {
        Plan own = new Plan("shop-a", List.of(
                new Limit("trial", LimitScope.eachRoute(), new TokenBucket(5, 1), 1, true)));
        assertThat(resolved(own, "create-order")).containsExactly("trial@TENANT", "day@PLAN");
    }

    @Test
    void anOwnLimitHidesAPlanLimitOfTheSameNameInAnotherGroup() {
        Plan own = new Plan("shop-a", List.of(new Limit("day", LimitScope.eachRoute(), new CalendarQuota(500, QuotaPeriod.DAY))));
        assertThat(resolved(own, "create-order")).containsExactly("day@TENANT", "rate@PLAN");
    }
}
