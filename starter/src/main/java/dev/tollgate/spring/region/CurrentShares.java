package dev.tollgate.spring.region;

import dev.tollgate.core.RuleScope;
import dev.tollgate.core.region.RegionShares;
import dev.tollgate.core.region.ShareTable;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The share table this instance enforces: the configured defaults until the rebalancer's shares
 * are read from PostgreSQL, then the last shares read, kept as they are while PostgreSQL cannot be
 * reached. Swapped atomically; read on every request.
 */
public final class CurrentShares implements Supplier<ShareTable> {

    private final String region;
    private volatile ShareTable table;
    private volatile long version = -1;

    public CurrentShares(String region, RegionShares defaults) {
        this.region = region;
        this.table = ShareTable.defaultsOnly(defaults);
    }

    @Override
    public ShareTable get() {
        return table;
    }

    public String region() {
        return region;
    }

    /** The version of the shares read last ({@code rebalancer_state.shares_version}); -1 before the first read. */
    public long version() {
        return version;
    }

    void replace(ShareTable next, long nextVersion) {
        table = next;
        version = nextVersion;
    }

    /** The shares of a bucket as this instance enforces them: stored, else the defaults. */
    public RegionShares sharesFor(String tenant, String route) {
        return table.sharesFor(tenant, route);
    }

    /** The stored (moved or tracked) shares of the buckets of one tenant, by route. */
    public Map<String, RegionShares> storedForTenant(String tenant) {
        Map<String, RegionShares> byRoute = new TreeMap<>();
        for (Map.Entry<RuleScope, RegionShares> e : table.stored().entrySet()) {
            if (e.getKey().tenant().equals(tenant)) {
                byRoute.put(e.getKey().route(), e.getValue());
            }
        }
        return byRoute;
    }
}
