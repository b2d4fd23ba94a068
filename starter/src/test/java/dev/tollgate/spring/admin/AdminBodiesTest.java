package dev.tollgate.spring.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AdminBodiesTest {

    private static RuleRequest rule(String json) {
        return AdminBodies.bind(json.getBytes(StandardCharsets.UTF_8), RuleRequest.class);
    }

    @Test
    void integersAreNumbersAndNumbersKeepEveryDigit() {
        RuleRequest r = rule("{\"capacity\":5,\"refillPerSecond\":1,\"cost\":2,\"shadow\":true,\"shards\":3}");
        assertThat(r).isEqualTo(new RuleRequest(5L, BigDecimal.ONE, 2L, true, 3));
        assertThat(rule("{\"capacity\":5,\"refillPerSecond\":0.1}").refillPerSecond()).isEqualTo(new BigDecimal("0.1"));
        assertThat(rule("{\"capacity\":5,\"refillPerSecond\":1e-10000000}").refillPerSecond())
                .isEqualTo(new BigDecimal("1e-10000000"));
        assertThat(rule("null")).isNull();
    }

    @ParameterizedTest(name = "{0} -> {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "{\"capacity\":1.5}                         | capacity        | capacity must be a whole number",
            "{\"capacity\":\"10\"}                      | capacity        | capacity must be a whole number",
            "{\"capacity\":12345678901234567890123}     | capacity        | capacity is out of range",
            "{\"refillPerSecond\":\"1\"}                | refillPerSecond | refillPerSecond must be a number",
            "{\"shadow\":1}                             | shadow          | shadow must be true or false",
            "{\"shadow\":\"yes\"}                       | shadow          | shadow must be true or false",
            "{\"shards\":2.0}                           | shards          | shards must be a whole number",
            "{\"cots\":1}                               | cots            | unknown field 'cots'; the fields are capacity, refillPerSecond, cost, shadow, shards",
            "{\"cost\":1,\"cost\":1}                    | cost            | cost is given more than once",
            "{\"capacity\":                             | body            | the body is not a JSON object of the expected shape",
            "{} []                                      | body            | the body is not a JSON object of the expected shape",
            "[]                                         | body            | the body is not a JSON object of the expected shape",
    })
    void anythingButTheExactTypeIsRefusedByName(String json, String field, String message) {
        assertThatThrownBy(() -> rule(json))
                .isInstanceOfSatisfying(AdminRequestException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).isEqualTo(message);
                });
    }

    @Test
    void aLabelIsAString() {
        assertThatThrownBy(() -> AdminBodies.bind("{\"label\":5}".getBytes(StandardCharsets.UTF_8), KeyRequest.class))
                .isInstanceOfSatisfying(AdminRequestException.class, e -> assertThat(e.field()).isEqualTo("label"));
    }
}
