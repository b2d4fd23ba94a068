package dev.tollgate.spring.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;


import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** {@code tollgate.datasource.*}: Tollgate's own database and schema, else the application's database. */
class DatasourcePropertiesTest {

    private final MockEnvironment application = new MockEnvironment()
            .withProperty("spring.datasource.url", "jdbc:postgresql://app-db:5432/app")
            .withProperty("spring.datasource.username", "app")
            .withProperty("spring.datasource.password", "app-secret");

    @Test
    void withoutAUrlOfItsOwnTollgateUsesTheApplicationsDatabaseInItsSchema() {
        DatabaseEndpoint endpoint = new DatasourceProperties(null, null, null, "tollgate").endpoint(application);
        assertThat(endpoint.url()).isEqualTo("jdbc:postgresql://app-db:5432/app");
        assertThat(endpoint.username()).isEqualTo("app");
        assertThat(endpoint.schema()).isEqualTo("tollgate");
        assertThat(endpoint.connectionProperties()).containsEntry("currentSchema", "tollgate")
                .containsEntry("user", "app").containsEntry("password", "app-secret");
    }

    @Test
    void aUrlOfItsOwnNeverTakesTheApplicationsCredentials() {
        DatabaseEndpoint endpoint = new DatasourceProperties("jdbc:postgresql://limits-db:5432/limits", null, null, null)
                .endpoint(application);
        assertThat(endpoint.url()).isEqualTo("jdbc:postgresql://limits-db:5432/limits");
        assertThat(endpoint.username()).isNull();
        assertThat(endpoint.password()).isNull();
        assertThat(endpoint.schema()).isNull();
        assertThat(endpoint.connectionProperties()).isEmpty();

        DatabaseEndpoint own = new DatasourceProperties("jdbc:postgresql://limits-db:5432/limits", "gw", "pw", "rl")
                .endpoint(application);
        assertThat(own.connectionProperties()).containsEntry("user", "gw").containsEntry("password", "pw")
                .containsEntry("currentSchema", "rl");
        assertThat(own.toString()).doesNotContain("pw");
    }

    @Test
    void theSchemaIsAPlainLowerCaseNameQuotedWhenRefused() {
        for (String bad : new String[] {"Tollgate", "1limits", "rate-limits", "a\"; DROP SCHEMA public; --", "x".repeat(64)}) {
            assertThatThrownBy(() -> new DatasourceProperties(null, null, null, bad))
                    .hasMessageContaining("tollgate.datasource.schema").hasMessageContaining(bad);
        }
        assertThatThrownBy(() -> new DatasourceProperties(null, null, null, "Tollgate"))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.setting()).isEqualTo("tollgate.datasource.schema");
                    assertThat(e.value()).isEqualTo("Tollgate");
                });
        assertThat(new DatasourceProperties(null, null, null, " ").schema()).isNull();
        assertThat(new DatasourceProperties(null, null, null, "_rate_limits2").schema()).isEqualTo("_rate_limits2");
    }

    @Test
    void aDatabaseUrlIsQuotedWithoutAnyPasswordWrittenIntoIt() {
        assertThat(DatabaseEndpoint.withoutSecrets("jdbc:postgresql://db:5432/x?user=a&password=pw&ssl=true"))
                .isEqualTo("jdbc:postgresql://db:5432/x?user=a&password=***&ssl=true");
        assertThat(DatabaseEndpoint.withoutSecrets("jdbc:mysql://app:pw@db/x")).isEqualTo("jdbc:mysql://app:***@db/x");
        assertThat(DatabaseEndpoint.withoutSecrets("jdbc:postgresql://pw@db/x"))
                .isEqualTo("jdbc:postgresql://***@db/x");
        assertThat(DatabaseEndpoint.withoutSecrets("jdbc:oracle:thin:scott/pw@db:1521:orcl"))
                .isEqualTo("jdbc:oracle:thin:***@db:1521:orcl");
        assertThat(DatabaseEndpoint.withoutSecrets("jdbc:sqlserver://db;user=a;Password=pw;encrypt=true"))
                .isEqualTo("jdbc:sqlserver://db;user=a;Password=***;encrypt=true");
        assertThat(DatabaseEndpoint.withoutSecrets("jdbc:postgresql://db:5432/x?sslmode=require"))
                .isEqualTo("jdbc:postgresql://db:5432/x?sslmode=require");
        assertThat(new DatabaseEndpoint("jdbc:postgresql://db/x?password=s3cr3t", "u", "s3cr3t").toString())
                .doesNotContain("s3cr3t");
    }
}
