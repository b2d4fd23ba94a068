package dev.tollgate.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.spring.localstate.LocalState;
import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.metrics.TollgateMeters;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.spring.settings.InvalidSettingException;
import dev.tollgate.spring.settings.InvalidSettingFailureAnalyzer;
import dev.tollgate.spring.settings.LocalStateProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Which folder and which secret the local state gets, and what happens when one is missing or unsafe. */
// Alone: it reads what the whole JVM prints, which a class running beside it would add to.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class LocalStateConfigurationTest {

    private static final String SECRET = "sixteen chars or more";

    @TempDir
    Path temporary;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(Base.class, LocalStateConfiguration.class);

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties({LocalStateProperties.class, TollgateProperties.class})
    static class Base {
        @Bean
        TollgateMeters tollgateMeters() {
            return new TollgateMeters(new SimpleMeterRegistry());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Database {
        @Bean
        DatabaseEndpoint databaseEndpoint() {
            return new DatabaseEndpoint("jdbc:postgresql://db:5432/tollgate", "gateway", "the database password");
        }
    }

    @Test
    void byDefaultTheFolderIsThisInstancesOwnInTheUsersHome() {
        runner.withPropertyValues("tollgate.local-state.secret=" + SECRET, "spring.application.name=orders gateway",
                "server.port=9090").run(context -> {
                    assertThat(folder(context.getBean(LocalState.class)).directory()).isEqualTo(
                            Path.of(System.getProperty("user.home"), ".tollgate", "local-state", "orders_gateway-9090"));
                });
        runner.withPropertyValues("tollgate.local-state.secret=" + SECRET).run(context ->
                assertThat(folder(context.getBean(LocalState.class)).directory()).isEqualTo(
                        Path.of(System.getProperty("user.home"), ".tollgate", "local-state", "tollgate-8080")));
    }

    @Test
    void theFolderSetIsUsedWithTheSecretSet(CapturedOutput output) {
        runner.withPropertyValues("tollgate.local-state.secret=" + SECRET,
                "tollgate.local-state.directory=" + temporary).run(context -> {
                    assertThat(folder(context.getBean(LocalState.class)).directory()).isEqualTo(temporary);
                    assertThat(context.getBean(TollgateMeters.class).registry().get("tollgate.local.state.refused")
                            .tag("file", "directory.snapshot").functionCounter().count()).isZero();
                });
        assertThat(output).contains("Local state in " + temporary + ", authenticated with tollgate.local-state.secret")
                .doesNotContain(SECRET);
    }

    @Test
    void withoutASecretTheDatabasePasswordAuthenticatesTheFiles(CapturedOutput output) {
        runner.withUserConfiguration(Database.class).withPropertyValues("tollgate.local-state.directory=" + temporary)
                .run(context -> assertThat(context.getBean(LocalState.class).folder()).isPresent());
        assertThat(output).contains("authenticated with the database password");
    }

    @Test
    void withNeitherSecretNorDatabasePasswordThereIsNoLocalState(CapturedOutput output) {
        runner.withPropertyValues("tollgate.local-state.directory=" + temporary).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LocalState.class).folder()).isEmpty();
        });
        // Rules in PostgreSQL (the default): the saved rules and keys are lost, which deserves a WARN.
        assertThat(line(output, "Local state is off")).contains(" WARN ")
                .contains("nothing to authenticate its files with").contains("Set tollgate.local-state.secret");
    }

    @Test
    void withStaticRulesAndNoSecretTheLocalStateIsOffWithAnInfoLineOnly(CapturedOutput output) {
        runner.withPropertyValues("tollgate.source=static", "tollgate.local-state.directory=" + temporary)
                .run(context -> assertThat(context.getBean(LocalState.class).folder()).isEmpty());
        // Only the instance count is lost: no WARN at every start of every static-rules application.
        assertThat(line(output, "Local state is off")).contains(" INFO ")
                .contains("it would keep only the last instance count");
        assertThat(output.getOut()).doesNotContain(" WARN ");
    }

    @Test
    void aFolderOthersMayWriteStopsTheStart() throws Exception {
        Path shared = Files.createDirectory(temporary.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        runner.withPropertyValues("tollgate.local-state.secret=" + SECRET, "tollgate.local-state.directory=" + shared)
                .run(context -> {
                    assertThat(context).getFailure().rootCause().isInstanceOf(InvalidSettingException.class)
                            .hasMessageContaining(shared + " is writable by group or others");
                    // Spring Boot's report: the setting, the folder, and what to do about it.
                    FailureAnalysis analysis = new InvalidSettingFailureAnalyzer(null)
                            .analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("Setting: tollgate.local-state.directory")
                            .contains("Value: \"" + shared + "\"").doesNotContain(SECRET);
                    assertThat(analysis.getAction()).contains("chmod 700 " + shared)
                            .contains("set tollgate.local-state.directory to another folder");
                });
    }

    @Test
    void theDefaultFolderIsNamedAsSuchWhenItIsRefused() throws Exception {
        Path home = Files.createDirectory(temporary.resolve("home"));
        Path folder = Files.createDirectories(home.resolve(".tollgate/local-state/tollgate-8080"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxr-x"));
        String userHome = System.getProperty("user.home");
        System.setProperty("user.home", home.toString());
        try {
            runner.withPropertyValues("tollgate.local-state.secret=" + SECRET).run(context ->
                    assertThat(context).getFailure().rootCause().isInstanceOf(InvalidSettingException.class)
                            .hasMessageContaining(folder + " (this instance's default) is writable by group or"
                                    + " others"));
        } finally {
            System.setProperty("user.home", userHome);
        }
    }

    @Test
    void aShortSecretStopsTheStartWithoutQuotingIt() {
        runner.withPropertyValues("tollgate.local-state.secret=short").run(context ->
                assertThat(context).getFailure().rootCause()
                        .hasMessage("tollgate.local-state.secret must have at least 16 characters, it has 5"));
    }

    /** The line of the output that contains {@code text}. */
    private static String line(CapturedOutput output, String text) {
        return output.getOut().lines().filter(l -> l.contains(text)).findFirst().orElseThrow(
                () -> new AssertionError("no line with '" + text + "' in:\n" + output.getOut()));
    }

        private static LocalStateDirectory folder(LocalState state) {
        return state.folder().orElseThrow();
    }
}
