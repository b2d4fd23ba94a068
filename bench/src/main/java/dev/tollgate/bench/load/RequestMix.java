package dev.tollgate.bench.load;

/**
 * What the i-th request of a run asks for: a path and an API key. Keys rotate over a pool of
 * tenants, so buckets are spread as in a multi-tenant deployment rather than all on one hot key.
 */
public record RequestMix(String path, String tenantPrefix, int tenants) {

    public RequestMix {
        if (tenants < 1) {
            throw new IllegalArgumentException("tenants must be at least 1, was " + tenants);
        }
    }

    /** Every request from one tenant. */
    public static RequestMix singleTenant(String path, String tenant) {
        return new RequestMix(path, tenant, 1);
    }

    public String apiKey(long i) {
        return tenants == 1 ? tenantPrefix : tenantPrefix + (i % tenants);
    }
}
