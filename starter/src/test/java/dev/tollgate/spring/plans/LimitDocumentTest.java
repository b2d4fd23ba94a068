package dev.tollgate.spring.plans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.core.InvalidRuleException;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LimitDocumentTest {

    private static final String CANONICAL = "["
            + "{\"name\":\"rate\",\"scope\":\"each-route\",\"capacity\":20,\"refillPerSecond\":10,\"cost\":1,\"shadow\":false},"
            + "{\"name\":\"orders\",\"scope\":\"route\",\"route\":\"create-order\",\"capacity\":200,\"refillPerSecond\":0.125,\"cost\":2,\"shadow\":true},"
            + "{\"name\":\"day\",\"scope\":\"tenant\",\"quota\":10000,\"period\":\"day\",\"cost\":1,\"shadow\":false},"
            + "{\"name\":\"month\",\"scope\":\"tenant\",\"quota\":1000000,\"period\":\"month\",\"zone\":\"Europe/Berlin\",\"cost\":5,\"shadow\":false}"
            + "]";

    @Test
    void readsEveryKindOfLimitAndWritesItBackIdentically() {
        List<Limit> limits = LimitDocument.readLimits(CANONICAL, "limits");
        assertThat(limits).containsExactly(
                new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10)),
                new Limit("orders", LimitScope.route("create-order"), new TokenBucket(200, 0.125), 2, true),
                new Limit("day", LimitScope.tenant(), new CalendarQuota(10_000, QuotaPeriod.DAY)),
                new Limit("month", LimitScope.tenant(),
                        new CalendarQuota(1_000_000, QuotaPeriod.MONTH, ZoneId.of("Europe/Berlin")), 5, false));
        assertThat(LimitDocument.toJson(limits)).isEqualTo(CANONICAL);
        assertThat(LimitDocument.readLimits(LimitDocument.toJson(limits), "limits")).isEqualTo(limits);
    }

    @Test
    void optionalFieldsDefault() {
        Limit limit = LimitDocument.readLimits("[{\"name\":\"d\",\"scope\":\"tenant\",\"quota\":5,\"period\":\"MINUTE\"}]",
                "limits").get(0);
        assertThat(limit).isEqualTo(new Limit("d", LimitScope.tenant(), new CalendarQuota(5, QuotaPeriod.MINUTE)));
        assertThat(LimitDocument.toJson(List.of(limit)))
                .isEqualTo("[{\"name\":\"d\",\"scope\":\"tenant\",\"quota\":5,\"period\":\"minute\",\"cost\":1,\"shadow\":false}]");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{'name':'r','scope':'tenant','capacity':5,'refillPerSecond':1,'quota':5,'period':'day'}|limits[0].capacity|not both",
        "{'name':'r','scope':'tenant'}|limits[0].capacity|is required",
        "{'name':'r','scope':'tenant','capacity':5,'refillPerSecond':1,'extra':1}|limits[0].extra|not a field",
        "{'name':'r','scope':'tenant','capacity':1.5,'refillPerSecond':1}|limits[0].capacity|whole number",
        "{'name':'r','scope':'tenant','capacity':'5','refillPerSecond':1}|limits[0].capacity|whole number",
        "{'name':'r','scope':'tenant','capacity':0,'refillPerSecond':1}|limits[0].capacity|between 1",
        "{'name':'r','scope':'tenant','capacity':5,'refillPerSecond':0.0001}|limits[0].refillPerSecond|three decimals",
        "{'name':'r','scope':'tenant','capacity':5,'refillPerSecond':1e400}|limits[0].refillPerSecond|<= 1000000000",
        "{'name':'r','scope':'tenant','capacity':5}|limits[0].refillPerSecond|is required",
        "{'name':'r','scope':'everything','capacity':5,'refillPerSecond':1}|limits[0].scope|one of route, each-route, tenant",
        "{'name':'r','scope':'tenant','route':'x','capacity':5,'refillPerSecond':1}|limits[0].route|only allowed with scope route",
        "{'name':'r','scope':'route','capacity':5,'refillPerSecond':1}|limits[0].route|is required",
        "{'name':'a b','scope':'tenant','capacity':5,'refillPerSecond':1}|limits[0].name|must be 1 to 64",
        "{'scope':'tenant','capacity':5,'refillPerSecond':1}|limits[0].name|is required",
        "{'name':'r','scope':'tenant','quota':5,'period':'week'}|limits[0].period|one of minute",
        "{'name':'r','scope':'tenant','quota':5,'period':'day','zone':'Mars/Olympus'}|limits[0].zone|region id",
        "{'name':'r','scope':'tenant','quota':5,'period':'day','cost':6}|limits[0].cost|between 1 and the quota 5",
        "{'name':'r','scope':'tenant','quota':5,'period':'day','shadow':1}|limits[0].shadow|true or false",
        "{'name':'r','name':'s','scope':'tenant','quota':5,'period':'day'}|limits|more than once",
    })
    void refusesABadLimitNamingTheField(String limit, String field, String problem) {
        assertThatThrownBy(() -> LimitDocument.readLimits("[" + limit.replace('\'', '"') + "]", "limits"))
                .isInstanceOfSatisfying(InvalidRuleException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.problem()).contains(problem);
                });
    }

    @Test
    void refusesWhatIsNotAListOfLimits() {
        assertThatThrownBy(() -> LimitDocument.readLimits("{}", "limits")).hasMessage("limits must be a list of limits");
        assertThatThrownBy(() -> LimitDocument.readLimits("[1]", "limits"))
                .hasMessage("limits[0] must be a limit: a JSON object");
        assertThatThrownBy(() -> LimitDocument.readLimits("[", "limits")).hasMessage("limits is not well-formed JSON");
    }
}
