package dev.tollgate.spring.tenant;

/** Maps the API key a request presents to the tenant it belongs to. Never blocks, never throws. */
@FunctionalInterface
public interface TenantResolver {

    /** Who {@code apiKey} (never null or blank) belongs to. */
    TenantLookup lookup(String apiKey);
}
