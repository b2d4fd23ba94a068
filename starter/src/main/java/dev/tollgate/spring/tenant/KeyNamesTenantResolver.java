package dev.tollgate.spring.tenant;

/**
 * The seed's identity scheme: the API key is the tenant's name. Anyone who knows a tenant's name
 * can spend its quota, so this is a stand-in until keys are looked up in a table of hashed keys.
 */
public final class KeyNamesTenantResolver implements TenantResolver {

    @Override
    public String tenantFor(String apiKey) {
        return apiKey;
    }
}
