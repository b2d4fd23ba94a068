package dev.tollgate.spring.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.testkit.FreePort;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The mistakes a team makes first when it adds the starter, as Spring Boot reports them at a real
 * start: "APPLICATION FAILED TO START" with a Description that names the setting in full and its value
 * (never a password), and an Action that says what to set, instead of a stack trace.
 */
// Alone: it reads what the whole JVM prints, which a class running beside it would add to.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class SettingFailureReportTest {

    private static final String PASSWORD = "hunter2-not-to-be-quoted";

    @TempDir
    Path temporary;

    @AfterEach
    void stop() {
        StarterApplication.stop();
    }

    private static void startFails(String... extra) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
                "--tollgate.redis.startup-wait=0s",
                // Nothing listens there: none of these starts gets as far as needing Redis.
                "--spring.data.redis.port=" + FreePort.find()));
        args.addAll(List.of(extra));
        assertThatThrownBy(() -> StarterApplication.start(args.toArray(String[]::new)))
                .isInstanceOf(RuntimeException.class);
    }

    private static String report(CapturedOutput output) {
        String all = output.getOut() + output.getErr();
        assertThat(all).contains("APPLICATION FAILED TO START").contains("Description:").contains("Action:")
                .doesNotContain("Application run failed");
        return all.substring(all.indexOf("APPLICATION FAILED TO START"));
    }

    @Test
    void rulesInPostgresqlWithoutADatabaseUrlSayWhatToSet(CapturedOutput output) {
        startFails();
        assertThat(report(output))
                .contains("Tollgate's configuration was refused: no database is set to read rules and API keys from:"
                        + " tollgate.source is database (the default), and neither spring.datasource.url nor"
                        + " tollgate.datasource.url is set.")
                .contains("Setting: spring.datasource.url")
                .contains("Set spring.datasource.url (the application's database) or tollgate.datasource.url")
                .contains("or set tollgate.source=static");
    }

    @Test
    void aDatabaseUrlThatIsNotPostgresqlIsQuotedWithoutItsPassword(CapturedOutput output) {
        startFails("--tollgate.datasource.url=jdbc:mysql://app:" + PASSWORD + "@db:3306/app?password=" + PASSWORD
                + "&useSSL=true");
        assertThat(report(output))
                .contains("tollgate.datasource.url must be a PostgreSQL JDBC URL")
                .contains("Setting: tollgate.datasource.url")
                .contains("Value: \"jdbc:mysql://app:***@db:3306/app?password=***&useSSL=true\"")
                .contains("Origin: \"tollgate.datasource.url\" from property source \"commandLineArgs\"")
                .doesNotContain(PASSWORD);
    }

    @Test
    void aRedisUrlThatIsNoRedisUrlIsNamedAndQuotedWithoutItsPassword(CapturedOutput output) {
        startFails("--tollgate.source=static", "--spring.data.redis.url=http://app:" + PASSWORD + "@cache:6379");
        assertThat(report(output))
                .contains("spring.data.redis.url must be redis://host:port or rediss://host:port")
                .contains("Setting: spring.data.redis.url")
                .contains("Value: \"http://***@cache:6379\"")
                .contains("Correct spring.data.redis.url")
                .doesNotContain(PASSWORD);
    }

    @Test
    void aBadLimitOfAStaticPlanIsNamedInFull(CapturedOutput output) {
        startFails("--tollgate.source=static", "--tollgate.plans.free[0].name=rate",
                "--tollgate.plans.free[0].scope=each-route", "--tollgate.plans.free[0].capacity=0",
                "--tollgate.plans.free[0].refill-per-second=1");
        assertThat(report(output))
                .contains("tollgate.plans.free[0].capacity must be between 1 and 1000000000, was 0")
                .contains("Setting: tollgate.plans.free[0].capacity")
                .contains("Correct tollgate.plans.free[0].capacity");
    }

    @Test
    void aLocalStateFolderOthersMayWriteSaysHowToMakeItPrivate(CapturedOutput output) throws Exception {
        Path shared = Files.createDirectory(temporary.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        startFails("--tollgate.source=static", "--tollgate.local-state.secret=" + PASSWORD,
                "--tollgate.local-state.directory=" + shared);
        assertThat(report(output))
                .contains("Tollgate's configuration was refused: tollgate.local-state.directory " + shared
                        + " is writable by group or others (rwxrwxrwx)")
                .contains("Setting: tollgate.local-state.directory")
                .contains("Value: \"" + shared + "\"")
                .contains("chmod 700 " + shared)
                .contains("set tollgate.local-state.directory to another folder")
                .doesNotContain(PASSWORD);
    }
}
