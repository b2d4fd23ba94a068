package dev.tollgate.spring.directory;

import java.util.regex.Pattern;

/** The ids tenants and routes may have in the directory: what the admin API accepts. */
public final class Ids {

    /**
     * 1 to 64 characters from {@code A-Z a-z 0-9 . _ ~ -}: safe in URLs, logs and Redis keys. Not
     * {@code .} or {@code ..}: as a path segment those are dot-segments, which no admin URL can address.
     */
    private static final Pattern ID = Pattern.compile("(?!\\.{1,2}$)[A-Za-z0-9._~-]{1,64}");

    private Ids() {
    }

    public static boolean isValidTenant(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** A route id, or {@code *} for every route of a tenant. */
    public static boolean isValidRoute(String id) {
        return id != null && ("*".equals(id) || ID.matcher(id).matches());
    }

    public static String rule() {
        return "1 to 64 characters from A-Z a-z 0-9 . _ ~ -, other than . and ..";
    }
}
