package dev.tollgate.spring.identity;

import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.spring.tenant.TenantResolver;
import java.util.List;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import reactor.core.publisher.Mono;

/**
 * The global filter's identities as {@link KeyResolver}s, for routes limited through Spring Cloud
 * Gateway's {@code RequestRateLimiter} filter with {@code #{@tollgateRateLimiter}}: the key is the
 * tenant Tollgate limits. An empty key makes that filter refuse the request (403 by its
 * {@code deny-empty-key} default), as the global filter's 401 does.
 */
public final class IdentityKeyResolvers {

    /** Bean name of {@link #clientAddress}. */
    public static final String CLIENT_ADDRESS = "tollgateClientAddressKeyResolver";
    /** Bean name of {@link #apiKey}. */
    public static final String API_KEY = "tollgateApiKeyResolver";

    private IdentityKeyResolvers() {
    }

    /** Every caller anonymous, limited by client address: {@code anon:<group>}, on the {@code anonymous} plan. */
    public static KeyResolver clientAddress(ClientAddresses addresses) {
        return exchange -> Mono.just(addresses.anonymousTenant(exchange.getRequest()));
    }

    /** The tenant of a verified API key in {@code header}; empty for a missing, repeated or unknown key. */
    public static KeyResolver apiKey(String header, TenantResolver tenants) {
        return exchange -> {
            List<String> keys = exchange.getRequest().getHeaders().get(header);
            if (keys == null || keys.size() != 1 || keys.get(0).isBlank()) {
                return Mono.empty();
            }
            return tenants.lookup(keys.get(0)) instanceof TenantLookup.Verified verified
                    ? Mono.just(verified.tenant()) : Mono.empty();
        };
    }
}
