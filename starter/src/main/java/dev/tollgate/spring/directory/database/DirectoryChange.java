package dev.tollgate.spring.directory.database;

/**
 * One row of the change log ({@code directory_change}): a rule scope or a key hash that changed, or
 * a row of another kind for a {@link ChangeLogFollower}.
 *
 * @param id      the row's id: change-log position
 * @param kind    {@code rule}, {@code key}, or a follower's kind
 * @param tenant  the tenant concerned
 * @param route   the route of a rule change (null otherwise)
 * @param keyHash the SHA-256 (hex) of the key of a key change (null otherwise)
 */
public record DirectoryChange(long id, String kind, String tenant, String route, String keyHash) {

    public static final String RULE = "rule";
    public static final String KEY = "key";

    public boolean isRule() {
        return RULE.equals(kind);
    }

    public boolean isKey() {
        return KEY.equals(kind);
    }
}
