package dev.tollgate.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's settings tables against the configuration metadata the build generates from the
 * properties records: every {@code tollgate.*} setting has a row, every row names a real setting,
 * and the default the README shows is the one the code applies. Defaults are written once, in the
 * records; this keeps the README from drifting.
 */
class SettingsDocumentationTest {

    /** {@code | `tollgate.x.y` | default | meaning |} */
    private static final Pattern ROW = Pattern.compile("^\\| `(tollgate\\.[^`]+)` \\| ([^|]*) \\|");

    private static final Map<String, String> documented = new LinkedHashMap<>();
    private static final Map<String, Object> defaults = new LinkedHashMap<>();

    @BeforeAll
    static void read() throws IOException {
        Path readme = Path.of("..", "README.md");
        for (String line : Files.readAllLines(readme, StandardCharsets.UTF_8)) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                assertThat(documented.put(row.group(1), row.group(2).trim()))
                        .as("README documents %s twice", row.group(1)).isNull();
            }
        }
        try (InputStream in = SettingsDocumentationTest.class.getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("configuration metadata on the class path").isNotNull();
            List<Map<String, Object>> properties = JsonPath.read(in, "$.properties");
            for (Map<String, Object> property : properties) {
                defaults.put((String) property.get("name"), property.get("defaultValue"));
            }
        }
        assertThat(defaults).as("metadata").containsKey("tollgate.redis.timeout");
    }

    @Test
    void everySettingHasARowInTheReadme() {
        List<String> missing = new ArrayList<>(defaults.keySet());
        missing.removeAll(documented.keySet());
        assertThat(missing).as("settings without a README row").isEmpty();
    }

    @Test
    void everyReadmeRowIsARealSetting() {
        List<String> unknown = new ArrayList<>();
        for (String name : documented.keySet()) {
            if (!defaults.containsKey(name) && !isElementOfACollection(name)) {
                unknown.add(name);
            }
        }
        assertThat(unknown).as("README rows that are no setting").isEmpty();
    }

    @Test
    void theReadmeShowsTheDefaultTheCodeApplies() {
        List<String> wrong = new ArrayList<>();
        defaults.forEach((name, value) -> {
            String cell = documented.get(name);
            if (cell == null) {
                return;
            }
            String expected = value == null ? null : "`" + value + "`";
            boolean ok = expected == null ? !cell.startsWith("`") : cell.equals(expected);
            if (!ok) {
                wrong.add(name + ": README says " + cell + ", the code " + (expected == null ? "has none" : expected));
            }
        });
        assertThat(wrong).isEmpty();
    }

    /** {@code tollgate.rules[i].capacity}, {@code tollgate.regions.<name>.share}: parts of a list or map setting. */
    private static boolean isElementOfACollection(String name) {
        return defaults.keySet().stream().anyMatch(setting -> name.startsWith(setting + "[")
                || name.startsWith(setting + ".<"));
    }
}
