package dev.tollgate.spring.settings;

import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.env.Environment;

/**
 * The PostgreSQL Tollgate keeps its rules, keys, heartbeats and region shares in
 * ({@code tollgate.datasource.*}), when it is not the application's own: unset, Tollgate uses Spring
 * Boot's {@code spring.datasource.url}, {@code .username} and {@code .password}. Tollgate always opens
 * its own connections (its own small pool, its {@code LISTEN} connection, the region coordinator's);
 * it never uses, nor replaces, an application's {@code DataSource}.
 *
 * @param url      JDBC URL of Tollgate's own database ({@code jdbc:postgresql://host:5432/db}); when set, the
 *                 user name and password are this group's too, never {@code spring.datasource.*}'s.
 * @param username Database user for {@code url}.
 * @param password Password of that user.
 * @param schema   Schema Tollgate's tables live in (created by the migrations when missing); every connection
 *                 Tollgate opens works in it. Unset: the connection's default (normally {@code public}).
 */
@ConfigurationProperties("tollgate.datasource")
public record DatasourceProperties(String url, String username, String password, String schema) {

    /** An unquoted PostgreSQL identifier: no quoting, no case folding, no injection. */
    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    public DatasourceProperties {
        url = blankToNull(url);
        schema = blankToNull(schema);
        if (schema != null && !SCHEMA.matcher(schema).matches()) {
            throw new InvalidSettingException("tollgate.datasource.schema", schema, "tollgate.datasource.schema must"
                    + " be a lower-case PostgreSQL name (letters, digits, '_', not starting with a digit, at most 63"
                    + " characters), was '" + schema + "'");
        }
    }

    /**
     * Where Tollgate's PostgreSQL is: {@code tollgate.datasource.*} when its URL is set, else
     * {@code spring.datasource.*}; in the schema of {@code tollgate.datasource.schema} either way. No
     * URL, or one that is not PostgreSQL's, stops the start naming the setting to correct.
     */
    public DatabaseEndpoint endpoint(Environment environment) {
        if (url != null) {
            return new DatabaseEndpoint(postgresql("tollgate.datasource.url", url), username, password, schema);
        }
        String applicationUrl = blankToNull(environment.getProperty("spring.datasource.url"));
        if (applicationUrl == null) {
            // The most common first mistake with the starter: rules in PostgreSQL is the default.
            throw new InvalidSettingException("spring.datasource.url", null, "no database is set to read rules and"
                    + " API keys from: tollgate.source is database (the default), and neither spring.datasource.url"
                    + " nor tollgate.datasource.url is set",
                    "Set spring.datasource.url (the application's database) or tollgate.datasource.url (a database"
                            + " of Tollgate's own) to a PostgreSQL JDBC URL, e.g. jdbc:postgresql://db:5432/tollgate,"
                            + " with the .username and .password of the same group; or set tollgate.source=static to"
                            + " take rules from tollgate.rules, without a database.");
        }
        return new DatabaseEndpoint(postgresql("spring.datasource.url", applicationUrl),
                environment.getProperty("spring.datasource.username"),
                environment.getProperty("spring.datasource.password"), schema);
    }

    /** {@code value} of {@code setting} if it is a PostgreSQL JDBC URL; quoted without its password if not. */
    private static String postgresql(String setting, String value) {
        if (!value.startsWith("jdbc:postgresql:")) {
            String quoted = DatabaseEndpoint.withoutSecrets(value);
            throw new InvalidSettingException(setting, quoted, setting + " must be a PostgreSQL JDBC URL"
                    + " (jdbc:postgresql://host:5432/database), was '" + quoted + "'");
        }
        return value;
    }

    @Override
    public String toString() {
        return "DatasourceProperties[url=" + DatabaseEndpoint.withoutSecrets(url) + ", username=" + username
                + ", schema=" + schema + "]";
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
