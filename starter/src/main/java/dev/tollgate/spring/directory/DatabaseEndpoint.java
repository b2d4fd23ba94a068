package dev.tollgate.spring.directory;

import java.util.Properties;

/**
 * Where PostgreSQL is: from {@code tollgate.datasource.*} or {@code spring.datasource.*}, or the
 * embedded server in dev mode. Every connection Tollgate opens takes its credentials and schema from
 * here ({@link #connectionProperties()}).
 *
 * @param schema the schema Tollgate's tables live in, or {@code null} for the connection's default
 */
public record DatabaseEndpoint(String url, String username, String password, String schema) {

    public DatabaseEndpoint {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("spring.datasource.url (or tollgate.datasource.url) must be set when"
                    + " tollgate.source=database (e.g. jdbc:postgresql://db:5432/tollgate), or use tollgate.source=static");
        }
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("the database URL must be a PostgreSQL JDBC URL"
                    + " (jdbc:postgresql://...), was " + url);
        }
    }

    /** In the connection's default schema. */
    public DatabaseEndpoint(String url, String username, String password) {
        this(url, username, password, null);
    }

    /**
     * The driver properties of a connection to this endpoint: user, password and, with a schema, pgjdbc's
     * {@code currentSchema} (the session's {@code search_path}), so that Tollgate's unqualified table
     * names find its tables.
     */
    public Properties connectionProperties() {
        Properties properties = new Properties();
        if (username != null) {
            properties.setProperty("user", username);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        if (schema != null) {
            properties.setProperty("currentSchema", schema);
        }
        return properties;
    }

    @Override
    public String toString() {
        return "DatabaseEndpoint[url=" + url + ", username=" + username
                + (schema != null ? ", schema=" + schema : "") + "]"; // never the password
    }
}
