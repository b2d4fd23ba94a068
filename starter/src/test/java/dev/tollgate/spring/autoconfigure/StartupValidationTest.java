package dev.tollgate.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.spring.settings.InvalidSettingException;
import dev.tollgate.spring.settings.InvalidSettingFailureAnalyzer;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A bad setting stops the application at start, naming the setting in full and what it accepts: checked
 * on the starter's auto-configuration alone ({@link ApplicationContextRunner}), and the report Spring
 * Boot prints for it ({@link InvalidSettingFailureAnalyzer}) read from the failure. That the report is
 * really printed by a starting gateway is checked end to end, once, by the gateway's
 * {@code ConfigurationValidationTest}.
 */
class StartupValidationTest {

    private static RedisServer redis;
    private static ApplicationContextRunner runner;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TollgateAutoConfiguration.class, RegionAutoConfiguration.class))
                .withUserConfiguration(Meters.class)
                .withPropertyValues("spring.data.redis.port=" + redis.port(), "tollgate.source=static");
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Configuration(proxyBeanMethods = false)
    static class Meters {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    /** Starts with {@code properties} and returns the failure, failing the test if it started. */
    private static Throwable failureWith(String... properties) {
        Throwable[] failure = new Throwable[1];
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            failure[0] = context.getStartupFailure();
        });
        return failure[0];
    }

    private static String stackTrace(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    /** What Spring Boot would print for the failure, from the starter's analyzer. */
    private static FailureAnalysis report(Throwable failure, AssertableApplicationContext ignored) {
        return new InvalidSettingFailureAnalyzer(null).analyze(failure);
    }

    private static FailureAnalysis report(Throwable failure) {
        return report(failure, null);
    }

    @Test
    void aZeroCapacityIsRefused() {
        assertThat(stackTrace(failureWith("tollgate.rules[0].tenant=t", "tollgate.rules[0].route=r",
                "tollgate.rules[0].capacity=0", "tollgate.rules[0].refill-per-second=1")))
                .contains("tollgate.rules[0]")
                .contains("capacity must be between 1 and 1000000000, was 0");
    }

    @Test
    void aNegativeDefaultRefillIsRefused() {
        assertThat(stackTrace(failureWith("tollgate.default-rule.refill-per-second=-1")))
                .contains("tollgate.default-rule.refill-per-second must be > 0 and <= 1e9, was -1.0");
    }

    @Test
    void theReportNamesTheSettingItsValueAndWhatToDo() {
        FailureAnalysis report = report(failureWith("tollgate.default-rule.capacity=0"));
        assertThat(report.getDescription())
                .contains("Tollgate's configuration was refused: tollgate.default-rule.capacity must be between 1 and"
                        + " 1000000000, was 0.")
                .contains("Setting: tollgate.default-rule.capacity")
                .contains("Value: \"0\"");
        assertThat(report.getAction())
                .contains("Correct tollgate.default-rule.capacity")
                .contains("TOLLGATE_DEFAULT_RULE_CAPACITY");
    }

    @Test
    void aRuleOfTheListIsReportedByItsIndexAndField() {
        Throwable failure = failureWith("tollgate.rules[0].tenant=t", "tollgate.rules[0].route=r",
                "tollgate.rules[0].capacity=5", "tollgate.rules[0].refill-per-second=1", "tollgate.rules[0].shards=65");
        assertThat(rootCause(failure)).hasMessage("tollgate.rules[0].shards must be between 1 and 64, was 65");
        assertThat(report(failure).getDescription())
                .contains("Setting: tollgate.rules[0].shards")
                .contains("Value: \"65\"");
    }

    @Test
    void aSecretIsNeverQuoted() {
        Throwable failure = failureWith("tollgate.admin.token=fifteen-chars!!");
        assertThat(rootCause(failure)).isInstanceOf(InvalidSettingException.class);
        assertThat(stackTrace(failure))
                .contains("tollgate.admin.token must be at least 16 characters, it has 15")
                .doesNotContain("fifteen-chars!!");
        assertThat(report(failure).getDescription())
                .contains("Setting: tollgate.admin.token")
                .doesNotContain("Value:")
                .doesNotContain("fifteen-chars!!");
    }

    @Test
    void duplicateRulesAreRefused() {
        assertThat(stackTrace(failureWith(
                "tollgate.rules[0].tenant=t", "tollgate.rules[0].route=r", "tollgate.rules[0].capacity=5",
                "tollgate.rules[0].refill-per-second=1",
                "tollgate.rules[1].tenant=t", "tollgate.rules[1].route=r", "tollgate.rules[1].capacity=6",
                "tollgate.rules[1].refill-per-second=1")))
                .contains("duplicate rule for tenant 't' and route 'r'");
    }

    @Test
    void actuatorOnThePublicPortIsRefused() {
        String port = Integer.toString(FreePort.find());
        Throwable failure = failureWith("server.port=" + port, "management.server.port=" + port);
        assertThat(rootCause(failure)).hasMessage("management.server.port is " + port + ", the same as server.port:"
                + " health, metrics and the other actuator endpoints would answer on the public gateway port");
        assertThat(report(failure).getDescription()).contains("Setting: management.server.port");
        assertThat(report(failure).getAction()).contains("Set management.server.port to a port of its own");
    }

    @Test
    void anAdminTokenWithoutAManagementPortOfItsOwnIsRefused() {
        Throwable failure = failureWith("management.server.port=", "tollgate.admin.token=sixteen-chars-ok");
        assertThat(rootCause(failure)).isInstanceOf(InvalidSettingException.class);
        assertThat(stackTrace(failure)).contains("management.server.port is not set, so actuator shares the gateway"
                + " port and the admin API (tollgate.admin.token is set) does not exist");
    }

    @Test
    void aTenantHeaderThatIsNoHeaderNameIsRefused() {
        assertThat(stackTrace(failureWith("tollgate.forwarding.tenant-header=X Tenant")))
                .contains("tollgate.forwarding.tenant-header must be a header name, was 'X Tenant'");
        assertThat(stackTrace(failureWith("tollgate.forwarding.tenant-header=x-api-key")))
                .contains("tollgate.forwarding.tenant-header must differ from tollgate.api-key-header");
    }

    @Test
    void identitySettingsAreCheckedAndNamed() {
        assertThat(stackTrace(failureWith("tollgate.routes.sign-up.identity=public")))
                .contains("tollgate.routes.sign-up.identity must be api-key, optional, anonymous or none, was 'public'");
        assertThat(stackTrace(failureWith("tollgate.client-address.trusted-proxies=10.0.0.0/8,lb.internal")))
                .contains("tollgate.client-address.trusted-proxies[1] must be an IP address or a CIDR block");
        assertThat(stackTrace(failureWith("tollgate.client-address.trusted-proxies=10.0.0.0/33")))
                .contains("tollgate.client-address.trusted-proxies[0]");
        assertThat(stackTrace(failureWith("tollgate.client-address.ipv6-prefix=129")))
                .contains("tollgate.client-address.ipv6-prefix must be 1 to 128, was 129");
        assertThat(stackTrace(failureWith("tollgate.client-address.ipv4-prefix=0")))
                .contains("tollgate.client-address.ipv4-prefix must be 1 to 32, was 0");
        assertThat(stackTrace(failureWith("tollgate.auth-failures.limit=0")))
                .contains("tollgate.auth-failures.limit must be 1 or more, was 0");
        assertThat(stackTrace(failureWith("tollgate.auth-failures.period=0s")))
                .contains("tollgate.auth-failures.period must be 1ms or more");
        assertThat(stackTrace(failureWith("tollgate.auth-failures.max-addresses=0")))
                .contains("tollgate.auth-failures.max-addresses must be 1 or more, was 0");
    }

    @Test
    void jwtSettingsAreCheckedAndNamed() {
        assertThat(stackTrace(failureWith("tollgate.jwt.issuer-uri=issuer.example")))
                .contains("tollgate.jwt.issuer-uri must be an http(s) URL, was 'issuer.example'");
        assertThat(stackTrace(failureWith("tollgate.jwt.jwk-set-uri=ftp://keys.example/jwks")))
                .contains("tollgate.jwt.jwk-set-uri must be an http(s) URL");
        assertThat(stackTrace(failureWith("tollgate.jwt.tenant-claim= ")))
                .contains("tollgate.jwt.tenant-claim must not be blank");
    }

    @Test
    void aDirectoryPoolOfOneConnectionIsRefusedWhileTheGatewayMigrates() {
        // Flyway locks on one connection and migrates on another: one would wait for itself forever.
        assertThat(report(failureWith("tollgate.directory.pool-size=1")).getDescription())
                .contains("tollgate.directory.pool-size must be at least 2 while tollgate.directory.migrate is true");
        runner.withPropertyValues("tollgate.directory.pool-size=1", "tollgate.directory.migrate=false")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void jwtSettingsWithoutSpringSecurityOnTheClassPathAreRefusedNamingWhatIsMissing() {
        Throwable[] failure = new Throwable[1];
        runner.withClassLoader(new FilteredClassLoader("org.springframework.security.oauth2"))
                .withPropertyValues("tollgate.jwt.jwk-set-uri=https://issuer.example/jwks")
                .run(context -> {
                    assertThat(context).hasFailed();
                    failure[0] = context.getStartupFailure();
                });
        assertThat(stackTrace(failure[0]))
                .contains("tollgate.jwt.jwk-set-uri is set, but bearer tokens need")
                .contains("spring-security-oauth2-resource-server");
        // Without the setting the same class path starts: bearer tokens are simply not looked at.
        runner.withClassLoader(new FilteredClassLoader("org.springframework.security.oauth2"))
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void sharesThatDoNotSumToOneAreRefusedSayingWhatTheySumTo() {
        assertThat(stackTrace(failureWith("tollgate.region=eu",
                "tollgate.regions.eu.share=0.7", "tollgate.regions.us.share=0.2")))
                .contains("tollgate.regions: region shares must sum to 1, but eu 0.7 + us 0.2 = 0.9");
    }

    @Test
    void aRegionTheRegionsDoNotNameIsRefused() {
        assertThat(stackTrace(failureWith("tollgate.region=ap",
                "tollgate.regions.eu.share=0.7", "tollgate.regions.us.share=0.3")))
                .contains("tollgate.region is 'ap', which tollgate.regions does not name (it names [eu, us])");
        assertThat(stackTrace(failureWith("tollgate.region=eu"))).contains("no region has a share");
    }

    @Test
    void aMinimumShareTheRegionsCannotAllHaveIsRefused() {
        assertThat(stackTrace(failureWith("tollgate.region=eu", "tollgate.regions.eu.share=0.5",
                "tollgate.regions.us.share=0.5", "tollgate.rebalancer.min-share=0.6")))
                .contains("tollgate.rebalancer.min-share 0.6")
                .contains("at most 1/2");
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
