package dev.tollgate.spring.directory;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.LimitBook;
import dev.tollgate.spring.settings.UnverifiedKeyPolicy;
import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.spring.tenant.TenantResolver;

/**
 * The in-memory view of the rules, plans and API keys in PostgreSQL that the request path reads. It
 * never touches the database: it holds one immutable {@link DirectorySnapshot}, replaced atomically
 * by the refresher.
 */
public final class Directory implements RuleBook, LimitBook, TenantResolver {

    private final UnverifiedKeyPolicy unverifiedKeys;
    private volatile DirectorySnapshot snapshot;

    public Directory(DirectorySnapshot initial, UnverifiedKeyPolicy unverifiedKeys) {
        this.snapshot = initial;
        this.unverifiedKeys = unverifiedKeys;
    }

    public DirectorySnapshot snapshot() {
        return snapshot;
    }

    public void replace(DirectorySnapshot next) {
        snapshot = next;
    }

    @Override
    public RateLimitRule ruleFor(String tenant, String route) {
        return snapshot.rules().ruleFor(tenant, route);
    }

    @Override
    public AppliedLimits limitsFor(String tenant, String route) {
        return snapshot.limits().limitsFor(tenant, route);
    }

    @Override
    public TenantLookup lookup(String apiKey) {
        DirectorySnapshot current = snapshot;
        if (!current.loaded()) {
            return unverifiedKeys == UnverifiedKeyPolicy.REJECT ? TenantLookup.UNAVAILABLE : TenantLookup.UNVERIFIED;
        }
        String tenant = current.tenantByKey().get(ApiKeys.hash(apiKey));
        return tenant == null ? TenantLookup.UNKNOWN_KEY : TenantLookup.verified(tenant);
    }
}
