package dev.tollgate.spring.directory.database;

/**
 * One row of the change log ({@code directory_change}): a rule scope, a key hash, a plan or a
 * tenant's plan that changed, or a row of another kind for a {@link ChangeLogFollower}.
 *
 * @param id      the row's id: change-log position
 * @param kind    {@code rule}, {@code key}, or a follower's kind
 * @param tenant  the tenant concerned (null for a plan change)
 * @param route   the route of a rule change (null otherwise)
 * @param keyHash the SHA-256 (hex) of the key of a key change (null otherwise)
 * @param plan    the plan's name of a plan change (null otherwise)
 */
public record DirectoryChange(long id, String kind, String tenant, String route, String keyHash, String plan) {

    public static final String RULE = "rule";
    public static final String KEY = "key";
    public static final String PLAN = "plan";
    /** Which plan a tenant is on: {@link #tenant()}. */
    public static final String TENANT_PLAN = "tenant-plan";

    /** The kinds the directory applies itself; no {@link ChangeLogFollower} may take them. */
    static boolean isDirectoryKind(String kind) {
        return RULE.equals(kind) || KEY.equals(kind) || PLAN.equals(kind) || TENANT_PLAN.equals(kind);
    }

    public boolean isRule() {
        return RULE.equals(kind);
    }

    public boolean isKey() {
        return KEY.equals(kind);
    }
}
