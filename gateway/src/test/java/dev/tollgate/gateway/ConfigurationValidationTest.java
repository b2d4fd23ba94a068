package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.spring.settings.InvalidSettingException;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What a starting gateway prints and does about its settings, end to end: a bad setting stops it with
 * Spring Boot's start-up failure report (what is wrong, the setting in full, its value and origin, and
 * what to do) rather than a stack trace; settings allowed only in some places start it, warning where
 * they should. Each refusal and its report are checked on the starter alone, by the starter's
 * {@code StartupValidationTest} (an {@code ApplicationContextRunner}, no gateway started).
 */
// Alone: it reads what the whole JVM prints, which a class running beside it would add to.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class ConfigurationValidationTest {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static Map<String, Object> withRedis(Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>(extra);
        properties.put("spring.data.redis.port", Integer.toString(redis.port()));
        properties.put("tollgate.source", "static");
        return properties;
    }

    @Test
    void aBadDefaultCapacityIsReportedWithTheFullSettingItsValueAndWhereItWasGiven(CapturedOutput output) {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.default-rule.capacity", "0"))))
                .hasRootCauseInstanceOf(InvalidSettingException.class);
        // Spring Boot's start-up failure report, not a stack trace.
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("Tollgate's configuration was refused: tollgate.default-rule.capacity must be between 1 and"
                        + " 1000000000, was 0.")
                .contains("Setting: tollgate.default-rule.capacity")
                .contains("Value: \"0\"")
                .contains("Origin: \"tollgate.default-rule.capacity\" from property source \"commandLineArgs\"")
                .contains("Action:")
                .contains("Correct tollgate.default-rule.capacity")
                .contains("TOLLGATE_DEFAULT_RULE_CAPACITY")
                .doesNotContain("Application run failed");
    }

    @Test
    void aShortAdminTokenIsAcceptedWhereShortTokensAreExplicitlyAllowedWithAWarningOutsideDevMode(
            CapturedOutput output) {
        Map<String, Object> shortToken = withRedis(Map.of(
                "tollgate.admin.token", "dev", "tollgate.admin.allow-short-token", "true"));
        try (RunningGateway gateway = RunningGateway.start(shortToken, "dev")) {
            assertThat(gateway.port()).isPositive();
        }
        assertThat(output.getOut()).doesNotContain("allow-short-token");
        try (RunningGateway gateway = RunningGateway.start(shortToken)) {
            assertThat(gateway.port()).isPositive();
        }
        assertThat(output.getOut()).contains("WARN").contains("tollgate.admin.allow-short-token=true outside dev mode");
    }

    @Test
    void actuatorOnThePublicPortIsAllowedOnlyOnALoopbackAddress() {
        // Refused on any other address (StartupValidationTest); on a loopback address the port is
        // nobody else's: allowed (dev mode, the benchmark).
        String port = Integer.toString(FreePort.find());
        try (RunningGateway gateway = RunningGateway.start(withRedis(Map.of(
                "server.port", port, "management.server.port", port, "server.address", "127.0.0.1")))) {
            assertThat(gateway.management("/actuator/health").statusCode()).isEqualTo(200);
        }
    }
}
