package dev.tollgate.spring.directory;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A migration that has shipped never changes: Flyway checksums every applied script, comments
 * included, and refuses to start on a database whose history no longer matches. Schema changes go
 * in a new script; add it here with its hash once it is final.
 */
class MigrationsAreImmutableTest {

    private static final Map<String, String> SHIPPED = Map.of(
            "V1__rate_limit_rule.sql", "6f3edb5821cc093bd59729e22d068c4f59f215b568d9a6b877ec2e895b804b92",
            "V2__keys_cost_and_change_log.sql", "5fd60ebf75d6a3aabe0222257edc92e069d18fe4345a7f19d177b5d0f61698ab",
            "V3__shadow_rules.sql", "7c2a73d07a4c04cb56969469dcb896bec1b96e46c7a16bed56850dec129945e2",
            "V4__sharded_rules.sql", "11647d2b089e00de60075acb870f1be382b5f32e0d490e7cd89dfcd2ba9d6d26",
            "V5__gateway_instance_heartbeats.sql", "6b9fd10650e0905349c6933b72365dcd5df0d5c544320413ffef403a619abd29",
            "V6__region_shares.sql", "1ea3b4b74526d97a1d0f28ccd6acf0b5c3113451e811fac6457d5d20d07a1f85",
            "V7__trigger_functions_search_path.sql",
            "040868803bb990dc6602e16fadba900f13142ad36e50d7c41b301579d7ee3143",
            "V8__plans.sql", "1ffae8973b9fa00e36a309f4ca9ed6647580616e6bb2244655a60696be46ee78");

    @Test
    void everyMigrationIsPinnedAndUnchanged() throws Exception {
        Path folder = Path.of(getClass().getResource("/dev/tollgate/db/migration").toURI());
        Map<String, String> found = new TreeMap<>();
        try (Stream<Path> scripts = Files.list(folder)) {
            for (Path script : scripts.toList()) {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(script));
                found.put(script.getFileName().toString(), HexFormat.of().formatHex(digest));
            }
        }
        assertThat(found).isEqualTo(new TreeMap<>(SHIPPED));
    }
}
