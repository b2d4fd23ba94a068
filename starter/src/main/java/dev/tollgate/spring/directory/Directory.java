package dev.tollgate.spring.directory;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import dev.tollgate.spring.tenant.TenantResolver;

/**
 * The in-memory view of the rules and API keys in PostgreSQL that the request path reads. It never
 * touches the database: it holds one immutable {@link DirectorySnapshot}, replaced atomically by
 * the refresher.
 */
public final class Directory implements RuleBook, TenantResolver {

    /**
     * Tenant id under which unverified requests share their buckets. The {@code ?} cannot occur in
     * a tenant id stored through the admin API, so no real tenant can collide with it.
     */
    public static final String UNVERIFIED_TENANT = "?unverified";

    private final UnverifiedKeyPolicy unverifiedKeys;
    private volatile DirectorySnapshot snapshot;

    public Directory(DirectorySnapshot initial, UnverifiedKeyPolicy unverifiedKeys) {
        this.snapshot = initial;
        this.unverifiedKeys = unverifiedKeys;
    }

    public DirectorySnapshot snapshot() {
        return snapshot;
    }

    void replace(DirectorySnapshot next) {
        snapshot = next;
    }

    @Override
    public RateLimitRule ruleFor(String tenant, String route) {
        return snapshot.rules().ruleFor(tenant, route);
    }

    @Override
    public String tenantFor(String apiKey) {
        DirectorySnapshot current = snapshot;
        if (!current.loaded()) {
            if (unverifiedKeys == UnverifiedKeyPolicy.REJECT) {
                throw DirectoryUnavailableException.INSTANCE;
            }
            return UNVERIFIED_TENANT;
        }
        return current.tenantByKey().get(ApiKeys.hash(apiKey));
    }
}
