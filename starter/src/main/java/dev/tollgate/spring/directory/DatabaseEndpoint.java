package dev.tollgate.spring.directory;

/** Where PostgreSQL is: from {@code spring.datasource.*}, or the embedded server in dev mode. */
public record DatabaseEndpoint(String url, String username, String password) {

    public DatabaseEndpoint {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("spring.datasource.url must be set when tollgate.source=database"
                    + " (e.g. jdbc:postgresql://db:5432/tollgate), or use tollgate.source=static");
        }
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("spring.datasource.url must be a PostgreSQL JDBC URL"
                    + " (jdbc:postgresql://...), was " + url);
        }
    }

    @Override
    public String toString() {
        return "DatabaseEndpoint[url=" + url + ", username=" + username + "]"; // never the password
    }
}
