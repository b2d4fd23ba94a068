package dev.tollgate.spring.tenant;

/**
 * The static source's identity scheme: the API key is the tenant's name. Anyone who knows a tenant's
 * name can spend its quota, so this is for trials and benchmarks; production looks keys up in a table
 * of hashed keys.
 */
public final class KeyNamesTenantResolver implements TenantResolver {

    @Override
    public TenantLookup lookup(String apiKey) {
        return TenantLookup.verified(apiKey);
    }
}
