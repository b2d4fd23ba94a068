package dev.tollgate.core.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.InvalidRuleException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class LimitTest {

    private static final Allowance RATE = new TokenBucket(20, 10);

    @Test
    void aValidLimitKeepsWhatItWasGiven() {
        Limit limit = new Limit("free.day-quota_1", LimitScope.tenant(),
                new CalendarQuota(10_000, QuotaPeriod.DAY), 2, true);
        assertThat(limit.cost()).isEqualTo(2);
        assertThat(limit.shadow()).isTrue();
        assertThat(((CalendarQuota) limit.allowance()).zone()).isEqualTo(ZoneOffset.UTC);
        assertThat(new Limit("rate", LimitScope.eachRoute(), RATE).cost()).isEqualTo(1);
    }

    @Test
    void limitsAndChargesAreEqualByEveryComponentAndHashAlikeWhenEqual() {
        Limit limit = new Limit("rate", LimitScope.eachRoute(), RATE, 2, false);
        Limit same = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10), 2, false);
        assertThat(same).isEqualTo(limit).hasSameHashCodeAs(limit);
        assertThat(limit).isNotEqualTo(new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 11), 2, false))
                .isNotEqualTo(new Limit("rate", LimitScope.tenant(), RATE, 2, false))
                .isNotEqualTo(new Limit("rate", LimitScope.route("orders"), RATE, 2, false))
                .isNotEqualTo(new Limit("rate", LimitScope.eachRoute(), new CalendarQuota(20, QuotaPeriod.DAY), 2, false))
                .isNotEqualTo(new Limit("rate", LimitScope.eachRoute(), RATE, 3, false))
                .isNotEqualTo(limit.shadow(true))
                .isNotEqualTo(new Limit("other", LimitScope.eachRoute(), RATE, 2, false))
                .isNotEqualTo(null)
                .isNotEqualTo("rate");

        LimitCharge charge = LimitCharge.of("shop-a", "orders", limit);
        LimitCharge sameCharge = new LimitCharge(new LimitKey("shop-a", "orders", "rate"), same, 2);
        assertThat(sameCharge).isEqualTo(charge).hasSameHashCodeAs(charge);
        assertThat(charge).isNotEqualTo(new LimitCharge(charge.key(), limit, 3))
                .isNotEqualTo(LimitCharge.of("shop-b", "orders", limit))
                .isNotEqualTo(LimitCharge.of("shop-a", "orders", limit.shadow(true)))
                .isNotEqualTo(null);
    }

    @Test
    void namesAreBoundedToASmallCharset() {
        for (String bad : new String[] {null, "", "-rate", "rate limit", "rate\n", "räte", "a".repeat(65), "x{y}"}) {
            assertThatThrownBy(() -> new Limit(bad, LimitScope.tenant(), RATE))
                    .isInstanceOfSatisfying(InvalidRuleException.class, e -> {
                        assertThat(e.field()).isEqualTo("name");
                        assertThat(e.problem()).contains("A-Z a-z 0-9 . _ -");
                        assertThat(e.getMessage()).doesNotContain("\n");
                    });
        }
        assertThat(new Limit("a".repeat(64), LimitScope.tenant(), RATE).name()).hasSize(64);
    }

    @Test
    void scopesNameTheirAllowedValuesAndTheRouteOnlyWhereItBelongs() {
        assertThat(LimitScope.Kind.parse("each-route")).isEqualTo(LimitScope.Kind.EACH_ROUTE);
        assertThat(LimitScope.Kind.parse("TENANT")).isEqualTo(LimitScope.Kind.TENANT);
        assertThatThrownBy(() -> LimitScope.Kind.parse("global"))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> {
                    assertThat(e.field()).isEqualTo("scope");
                    assertThat(e.problem()).isEqualTo("must be one of route, each-route, tenant, was 'global'");
                });
        assertThatThrownBy(() -> new LimitScope(LimitScope.Kind.ROUTE, null))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("route"));
        assertThatThrownBy(() -> LimitScope.route("*"))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.problem()).contains("each-route"));
        assertThatThrownBy(() -> new LimitScope(LimitScope.Kind.TENANT, "create-order"))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("route"));
        assertThatThrownBy(() -> LimitScope.route("a\u0000b")).isInstanceOf(InvalidRuleException.class);

        assertThat(LimitScope.route("create-order").appliesTo("create-order")).isTrue();
        assertThat(LimitScope.route("create-order").appliesTo("list-orders")).isFalse();
        assertThat(LimitScope.eachRoute().appliesTo("list-orders")).isTrue();
        assertThat(LimitScope.tenant().appliesTo("list-orders")).isTrue();
    }

    @Test
    void keysSeparateRoutesForRouteScopesAndShareOneForTheTenant() {
        Limit each = new Limit("rate", LimitScope.eachRoute(), RATE);
        Limit total = new Limit("total", LimitScope.tenant(), RATE);
        assertThat(each.keyFor("shop-a", "r1")).isNotEqualTo(each.keyFor("shop-a", "r2"));
        assertThat(total.keyFor("shop-a", "r1")).isEqualTo(total.keyFor("shop-a", "r2"));
        assertThat(total.keyFor("shop-a", "r1").isWholeTenant()).isTrue();
        assertThat(total.keyFor("shop-a", "r1")).isNotEqualTo(total.keyFor("shop-b", "r1"));
    }

    @Test
    void tokenBucketsAreValidatedAndConvertedAsRulesAre() {
        assertThatThrownBy(() -> new TokenBucket(0, 1))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("capacity"));
        assertThatThrownBy(() -> new TokenBucket(10, 0.0001))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("refillPerSecond"));
        // 10 tokens/s = 10,000 micro-tokens per ms.
        assertThat(new TokenBucket(20, 10).limits(3))
                .isEqualTo(new BucketLimits(20 * BucketLimits.MICROS_PER_TOKEN, 10_000, 3 * BucketLimits.MICROS_PER_TOKEN));
        // A request may cost more than the capacity: it never passes.
        assertThat(new TokenBucket(20, 10).limits(21).costFits()).isFalse();
    }

    @Test
    void quotasNameTheirFieldsAndAllowedValues() {
        assertThatThrownBy(() -> new CalendarQuota(0, QuotaPeriod.DAY))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("quota"));
        assertThatThrownBy(() -> new CalendarQuota(CalendarQuota.MAX_QUOTA + 1, QuotaPeriod.DAY))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("quota"));
        assertThatThrownBy(() -> QuotaPeriod.parse("week"))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> {
                    assertThat(e.field()).isEqualTo("period");
                    assertThat(e.problem()).isEqualTo("must be one of minute, hour, day, month, was 'week'");
                });
        assertThat(QuotaPeriod.parse("Month")).isEqualTo(QuotaPeriod.MONTH);
        assertThatThrownBy(() -> CalendarQuota.parseZone("Mars/Olympus"))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> {
                    assertThat(e.field()).isEqualTo("zone");
                    assertThat(e.problem()).contains("Europe/Berlin", "+05:30", "'Mars/Olympus'");
                });
        assertThat(CalendarQuota.parseZone(null)).isEqualTo(ZoneOffset.UTC);
        assertThat(CalendarQuota.parseZone("Europe/Berlin")).isEqualTo(ZoneId.of("Europe/Berlin"));
    }

    @Test
    void theCostIsBoundedByTheCapacityOrQuota() {
        assertThatThrownBy(() -> new Limit("rate", LimitScope.tenant(), RATE, 21, false))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> {
                    assertThat(e.field()).isEqualTo("cost");
                    assertThat(e.problem()).isEqualTo("must be between 1 and the capacity 20, was 21");
                });
        assertThatThrownBy(() -> new Limit("day", LimitScope.tenant(), new CalendarQuota(5, QuotaPeriod.DAY), 0, false))
                .isInstanceOfSatisfying(InvalidRuleException.class, e ->
                        assertThat(e.problem()).isEqualTo("must be between 1 and the quota 5, was 0"));
        assertThatThrownBy(() -> new Limit("x", null, RATE))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("scope"));
        assertThatThrownBy(() -> new Limit("x", LimitScope.tenant(), null))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> assertThat(e.field()).isEqualTo("allowance"));
    }
}
