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
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A bad setting stops the gateway at start, naming the setting in full and its value, in Spring Boot's
 * start-up failure report (what is wrong, and what to do) rather than a stack trace.
 */
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
    void aZeroCapacityIsRefused() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(RunningGateway.rule(0, "t", "r", 0, 1))))
                .hasStackTraceContaining("tollgate.rules[0]")
                .hasStackTraceContaining("capacity must be between 1 and 1000000000, was 0");
    }

    @Test
    void aNegativeDefaultRefillIsRefused() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.default-rule.refill-per-second", "-1"))))
                .hasStackTraceContaining("tollgate.default-rule.refill-per-second must be > 0 and <= 1e9, was -1.0");
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
    void aRuleOfTheListIsReportedByItsIndexAndField(CapturedOutput output) {
        Map<String, Object> properties = new HashMap<>(RunningGateway.rule(0, "t", "r", 5, 1));
        properties.put("tollgate.rules[0].shards", "65");
        assertThatThrownBy(() -> RunningGateway.start(withRedis(properties)))
                .hasRootCauseMessage("tollgate.rules[0].shards must be between 1 and 64, was 65");
        assertThat(output.getOut() + output.getErr())
                .contains("Setting: tollgate.rules[0].shards")
                .contains("Value: \"65\"");
    }

    @Test
    void aSecretIsNeverQuotedInTheReport(CapturedOutput output) {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.admin.token", "fifteen-chars!!"))))
                .hasRootCauseInstanceOf(InvalidSettingException.class);
        assertThat(output.getOut() + output.getErr())
                .contains("Setting: tollgate.admin.token")
                .doesNotContain("Value:")
                .doesNotContain("fifteen-chars!!");
    }

    @Test
    void duplicateRulesAreRefused() {
        Map<String, Object> properties = new HashMap<>(RunningGateway.rule(0, "t", "r", 5, 1));
        properties.putAll(RunningGateway.rule(1, "t", "r", 6, 1));
        assertThatThrownBy(() -> RunningGateway.start(withRedis(properties)))
                .hasStackTraceContaining("duplicate rule for tenant 't' and route 'r'");
    }

    @Test
    void anAdminTokenShorterThan16CharactersIsRefusedWithoutQuotingIt() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.admin.token", "fifteen-chars!!"))))
                .hasStackTraceContaining("tollgate.admin.token must be at least 16 characters, it has 15")
                .satisfies(e -> assertThat(stackTrace(e)).doesNotContain("fifteen-chars!!"));
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
    void actuatorOnThePublicPortIsRefused(CapturedOutput output) {
        String port = Integer.toString(FreePort.find());
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of(
                "server.port", port, "management.server.port", port))))
                .hasRootCauseMessage("management.server.port is " + port + ", the same as server.port: health,"
                        + " metrics and the other actuator endpoints would answer on the public gateway port");
        assertThat(output.getOut())
                .contains("Setting: management.server.port")
                .contains("Set management.server.port to a port of its own");
        // The same port on a loopback address is nobody else's: allowed (dev mode, the benchmark).
        try (RunningGateway gateway = RunningGateway.start(withRedis(Map.of(
                "server.port", port, "management.server.port", port, "server.address", "127.0.0.1")))) {
            assertThat(gateway.management("/actuator/health").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void anAdminTokenWithoutAManagementPortOfItsOwnIsRefused() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of(
                "management.server.port", "", "tollgate.admin.token", "sixteen-chars-ok"))))
                .hasRootCauseInstanceOf(InvalidSettingException.class)
                .hasStackTraceContaining("management.server.port is not set, so actuator shares the gateway port"
                        + " and the admin API (tollgate.admin.token is set) does not exist");
    }

    @Test
    void aTenantHeaderThatIsNoHeaderNameIsRefused() {
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.forwarding.tenant-header", "X Tenant"))))
                .hasStackTraceContaining("tollgate.forwarding.tenant-header must be a header name, was 'X Tenant'");
        assertThatThrownBy(() -> RunningGateway.start(withRedis(Map.of("tollgate.forwarding.tenant-header", "x-api-key"))))
                .hasStackTraceContaining("tollgate.forwarding.tenant-header must differ from tollgate.api-key-header");
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter out = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }
}
