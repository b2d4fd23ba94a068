package dev.tollgate.bench.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.bench.builtin.ApiKeyResolverAutoConfiguration;
import dev.tollgate.bench.builtin.BuiltInLimiterPlugin;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuiltInLimiterPluginTest {

    @Test
    void writesTheResolverClassAndItsAutoConfigurationRegistration(@TempDir Path dir) throws Exception {
        BuiltInLimiterPlugin.writeTo(dir);

        assertThat(dir.resolve("dev/tollgate/bench/builtin/ApiKeyResolverAutoConfiguration.class")).isRegularFile();
        assertThat(Files.readString(dir.resolve(
                "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")))
                .isEqualTo(ApiKeyResolverAutoConfiguration.class.getName() + "\n");
    }
}
