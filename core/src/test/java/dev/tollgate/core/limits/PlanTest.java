package dev.tollgate.core.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.core.InvalidRuleException;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanTest {

    /** The Free tier: 10 req/s with a burst of 20 on each route, and 10,000 requests a day. */
    private static final Plan FREE = new Plan("free", List.of(
            new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10)),
            new Limit("day", LimitScope.tenant(), new CalendarQuota(10_000, QuotaPeriod.DAY))));

    @Test
    void everyLimitThatAppliesToTheRoute() {
        assertThat(FREE.applyingTo("create-order")).extracting(Limit::name).containsExactly("rate", "day");
    }

    @Test
    void aRouteLimitReplacesTheEachRouteLimitOfItsKindOnThatRouteOnly() {
        Plan plan = new Plan("pro", List.of(
                new Limit("rate", LimitScope.eachRoute(), new TokenBucket(200, 100)),
                new Limit("export-rate", LimitScope.route("export"), new TokenBucket(2, 1)),
                new Limit("route-day", LimitScope.eachRoute(), new CalendarQuota(1000, QuotaPeriod.DAY)),
                new Limit("total", LimitScope.tenant(), new TokenBucket(1000, 500))));
        assertThat(plan.applyingTo("export")).extracting(Limit::name).containsExactly("export-rate", "route-day", "total");
        assertThat(plan.applyingTo("create-order")).extracting(Limit::name).containsExactly("rate", "route-day", "total");
    }

    @Test
    void namesAreDistinctAndTheSizeIsBounded() {
        Limit rate = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10));
        assertThatThrownBy(() -> new Plan("free", List.of(rate, rate)))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> {
                    assertThat(e.field()).isEqualTo("limits");
                    assertThat(e.problem()).contains("'rate' is twice");
                });
        assertThatThrownBy(() -> new Plan("big", Collections.nCopies(Plan.MAX_LIMITS + 1, rate)))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.problem()).contains("at most 16"));
        assertThatThrownBy(() -> new Plan("free/../x", List.of()))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("plan"));
        assertThat(new Plan("unlimited", List.of()).applyingTo("any")).isEmpty();
    }
}
