package dev.tollgate.spring.settings;

import java.util.Locale;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where PostgreSQL is: from {@code tollgate.datasource.*} or {@code spring.datasource.*}, or the
 * embedded server in dev mode. Every connection Tollgate opens takes its credentials and schema from
 * here ({@link #connectionProperties()}).
 *
 * @param schema the schema Tollgate's tables live in, or {@code null} for the connection's default
 */
public record DatabaseEndpoint(String url, String username, String password, String schema) {

    /** A query or {@code ;}-separated parameter of a JDBC URL: {@code ?password=...}, {@code ;password=...}. */
    private static final Pattern PARAMETER = Pattern.compile("([?&;])([^=&;]*)=([^&;]*)");

    public DatabaseEndpoint {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("spring.datasource.url (or tollgate.datasource.url) must be set when"
                    + " tollgate.source=database (e.g. jdbc:postgresql://db:5432/tollgate), or use tollgate.source=static");
        }
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("the database URL must be a PostgreSQL JDBC URL"
                    + " (jdbc:postgresql://...), was " + withoutSecrets(url));
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
        return "DatabaseEndpoint[url=" + withoutSecrets(url) + ", username=" + username
                + (schema != null ? ", schema=" + schema : "") + "]"; // never the password
    }

    /**
     * {@code url} fit to quote in a log line or an error: a password written into it (user information,
     * {@code jdbc:postgresql://app:pw@db/x}, or a parameter whose name says it is a secret,
     * {@code ?password=pw}) replaced by {@code ***}.
     */
    public static String withoutSecrets(String url) {
        if (url == null) {
            return null;
        }
        int end = firstOf(url, '?', ';');
        String head = url.substring(0, end);
        int at = head.lastIndexOf('@');
        if (at > 0) {
            int authority = head.indexOf("//");
            // jdbc:x://user:pw@host keeps the user; jdbc:oracle:thin:user/pw@host or a bare secret loses all.
            int start = authority >= 0 && authority < at ? authority + 2 : head.lastIndexOf(':', at) + 1;
            String userInfo = head.substring(start, at);
            boolean keepsUser = authority >= 0 && authority < at && userInfo.indexOf(':') >= 0;
            String masked = keepsUser ? userInfo.substring(0, userInfo.indexOf(':') + 1) + "***" : "***";
            head = userInfo.isEmpty() ? head : head.substring(0, start) + masked + head.substring(at);
        }
        Matcher parameter = PARAMETER.matcher(url.substring(end));
        StringBuilder rest = new StringBuilder();
        while (parameter.find()) {
            String name = parameter.group(2).toLowerCase(Locale.ROOT);
            boolean secret = name.contains("password") || name.contains("secret") || name.contains("token");
            parameter.appendReplacement(rest, Matcher.quoteReplacement(parameter.group(1) + parameter.group(2) + "="
                    + (secret ? "***" : parameter.group(3))));
        }
        parameter.appendTail(rest);
        return head + rest;
    }

    private static int firstOf(String text, char a, char b) {
        int i = text.indexOf(a);
        int j = text.indexOf(b);
        return i < 0 ? (j < 0 ? text.length() : j) : (j < 0 ? i : Math.min(i, j));
    }
}
