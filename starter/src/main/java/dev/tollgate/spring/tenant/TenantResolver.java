package dev.tollgate.spring.tenant;

/** Maps the API key a request presents to the tenant it belongs to. Never blocks. */
@FunctionalInterface
public interface TenantResolver {

    /** The tenant of {@code apiKey}, or {@code null} if the key is unknown. */
    String tenantFor(String apiKey);
}
