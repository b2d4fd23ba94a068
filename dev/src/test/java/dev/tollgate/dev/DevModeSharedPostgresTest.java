package dev.tollgate.dev;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.testkit.PostgresServer;
import dev.tollgate.testkit.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A dev-mode gateway can use a PostgreSQL it did not start (another dev-mode gateway's, for two
 * regions on one machine), and start its own on a chosen port.
 */
class DevModeSharedPostgresTest {

    /** Not the home folder: tests leave nothing behind. */
    @TempDir
    Path localState;

    @Test
    void withAPostgresUrlDevModeStartsNoneAndUsesThatOne() {
        try (PostgresServer shared = PostgresServer.start();
             ConfigurableApplicationContext dev = TollgateDevMode.application().run("--server.port=0",
                     "--management.server.port=0", "--spring.main.banner-mode=off",
                     "--tollgate.local-state.directory=" + localState,
                     "--tollgate.dev.postgres.url=" + shared.jdbcUrl())) {
            assertThat(dev.getBeansOfType(PostgresServer.class)).isEmpty();
            assertThat(dev.getBean(DatabaseEndpoint.class).url()).isEqualTo(shared.jdbcUrl());
            assertThat(dev.getBean(RedisServer.class).isAlive()).as("its own Redis still").isTrue();
            // The demo rules were seeded into the shared database.
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
                    dev.getBean(Directory.class).ruleFor("shop-a", "create-order").capacity() == 2);
        }
    }
}
