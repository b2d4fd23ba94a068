package dev.tollgate.core.limits;

/**
 * Identifies the state one limit keeps: the tenant, the route it counts ({@link #WHOLE_TENANT} for a
 * limit of tenant scope) and the limit's name. Two limits with different names never share state;
 * the same name on a tenant's new plan keeps counting where the old one stood.
 *
 * @param tenant non-empty
 * @param route  the route counted, or {@link #WHOLE_TENANT}
 * @param limit  the limit's {@link Limit#name()}
 */
public record LimitKey(String tenant, String route, String limit) {

    /**
     * {@link #route()} of a limit that counts all of a tenant's routes together. Empty, so that it is
     * no route id (route ids are never empty).
     */
    public static final String WHOLE_TENANT = "";

    public LimitKey {
        if (tenant == null || tenant.isEmpty()) {
            throw new IllegalArgumentException("tenant must be a non-empty string");
        }
        if (route == null) {
            throw new IllegalArgumentException("route must not be null (WHOLE_TENANT for a tenant's total)");
        }
        if (limit == null || limit.isEmpty()) {
            throw new IllegalArgumentException("limit must be a non-empty name");
        }
    }

    public boolean isWholeTenant() {
        return route.isEmpty();
    }

    // Written out rather than the record's generated ones: the generated methods go through a
    // method-handle chain that the profile of a busy gateway showed not folded away (a key is looked
    // up several times a request by the local store that follows Redis). Same contract.
    @Override
    public boolean equals(Object other) {
        return other instanceof LimitKey key && tenant.equals(key.tenant) && route.equals(key.route)
                && limit.equals(key.limit);
    }

    @Override
    public int hashCode() {
        return (31 * tenant.hashCode() + route.hashCode()) * 31 + limit.hashCode();
    }
}
