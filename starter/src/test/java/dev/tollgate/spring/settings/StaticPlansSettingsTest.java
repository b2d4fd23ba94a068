package dev.tollgate.spring.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.PlanBook;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code tollgate.plans} and {@code tollgate.tenant-plans} as Spring Boot binds them, and their refusals. */
class StaticPlansSettingsTest {

    private static TollgateProperties bind(Map<String, String> settings) {
        return new Binder(new MapConfigurationPropertySource(settings)).bindOrCreate("tollgate", TollgateProperties.class);
    }

    private static Map<String, String> freeTier() {
        Map<String, String> settings = new HashMap<>();
        settings.put("tollgate.plans.free[0].name", "rate");
        settings.put("tollgate.plans.free[0].scope", "each-route");
        settings.put("tollgate.plans.free[0].capacity", "20");
        settings.put("tollgate.plans.free[0].refill-per-second", "10");
        settings.put("tollgate.plans.free[1].name", "month");
        settings.put("tollgate.plans.free[1].scope", "tenant");
        settings.put("tollgate.plans.free[1].quota", "1000000");
        settings.put("tollgate.plans.free[1].period", "month");
        settings.put("tollgate.plans.free[1].zone", "Europe/Berlin");
        settings.put("tollgate.plans.free[1].shadow", "true");
        settings.put("tollgate.tenant-plans.shop-a", "free");
        return settings;
    }

    @Test
    void plansAndTenantsPlansAreBoundIntoThePlanBook() {
        PlanBook book = bind(freeTier()).planBook();
        assertThat(book.planOf("shop-a").limits()).containsExactly(
                new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10)),
                new Limit("month", LimitScope.tenant(),
                        new CalendarQuota(1_000_000, QuotaPeriod.MONTH, ZoneId.of("Europe/Berlin")), 1, true));
        assertThat(book.limitsFor("shop-a", "r").singleBucket()).isNull();
        AppliedLimits other = book.limitsFor("shop-b", "r");
        assertThat(other.singleBucket()).isEqualTo(RateLimitRule.of(20, 10));
        assertThat(book.defaultPlanName()).isEqualTo("default");
    }

    @Test
    void aPlanNamedAsTheDefaultPlanIsEveryOtherTenantsPlan() {
        Map<String, String> settings = freeTier();
        settings.put("tollgate.default-plan", "free");
        assertThat(bind(settings).planBook().limitsFor("shop-b", "r").limits()).hasSize(2);
    }

    @Test
    void withNoPlansEveryRequestResolvesToTodaysRule() {
        Map<String, String> settings = new HashMap<>();
        settings.put("tollgate.rules[0].tenant", "shop-a");
        settings.put("tollgate.rules[0].route", "*");
        settings.put("tollgate.rules[0].capacity", "5");
        settings.put("tollgate.rules[0].refill-per-second", "1");
        TollgateProperties properties = bind(settings);
        PlanBook book = properties.planBook();
        assertThat(book.limitsFor("shop-a", "r").singleBucket()).isEqualTo(properties.ruleSet().ruleFor("shop-a", "r"));
        assertThat(book.limitsFor("shop-b", "r").singleBucket()).isEqualTo(properties.defaultRateLimitRule());
    }

    @Test
    void aBadLimitIsRefusedNamingTheSettingInFull() {
        assertRefused("tollgate.plans.free[0].capacity", "0", "tollgate.plans.free[0].capacity must be between 1");
        assertRefused("tollgate.plans.free[1].period", "week", "tollgate.plans.free[1].period must be one of minute");
        assertRefused("tollgate.plans.free[1].scope", "everyone", "tollgate.plans.free[1].scope must be one of route");
        assertRefused("tollgate.plans.free[0].quota", "5", "tollgate.plans.free[0].capacity cannot be set with quota");
        assertRefused("tollgate.tenant-plans.shop-b", "gold",
                "tollgate.tenant-plans.shop-b names plan 'gold', which tollgate.plans does not declare");
        assertRefused("tollgate.plans.free[1].name", "rate", "tollgate.plans.free: limits must have distinct names");
    }

    private static void assertRefused(String setting, String value, String message) {
        Map<String, String> settings = freeTier();
        settings.put(setting, value);
        assertThatThrownBy(() -> bind(settings)).isInstanceOf(BindException.class)
                .rootCause().isInstanceOf(InvalidSettingException.class).hasMessageStartingWith(message);
    }
}
