package dev.tollgate.bench.plugin;

import dev.tollgate.spring.autoconfigure.TollgateAutoConfiguration;
import dev.tollgate.spring.directory.ApiKeys;
import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.spring.tenant.TenantResolver;
import java.util.HashMap;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A directory of issued keys for the static source, which otherwise takes every key as its tenant's
 * name and so never answers {@code 401 unknown-api-key}. The bogus-key flood needs keys that are not
 * issued: this resolver knows the keys {@code <prefix>0} to {@code <prefix><count - 1>} and a list of
 * names (each key is its tenant's name), and looks a key up as the database directory does (its
 * SHA-256 hash in a hash map, {@code Directory.lookup}), so a known key and an unknown one cost what
 * they cost in production. Like {@code ApiKeyResolverAutoConfiguration}, this class does not run in
 * the benchmark's JVM: it is copied onto the gateway's {@code loader.path}.
 *
 * <p>Registered before Tollgate's auto-configuration, whose static directory's resolver is only
 * created when no other {@link TenantResolver} exists.
 */
@AutoConfiguration(before = TollgateAutoConfiguration.class)
public class KnownKeysAutoConfiguration {

    public static final String PREFIX = "bench.known-keys.prefix";
    public static final String COUNT = "bench.known-keys.count";
    public static final String NAMES = "bench.known-keys.names";

    @Bean
    TenantResolver knownKeysTenantResolver(@Value("${" + PREFIX + "}") String prefix,
                                           @Value("${" + COUNT + "}") int count,
                                           @Value("${" + NAMES + "}") String[] names) {
        Map<String, String> tenantByHash = new HashMap<>();
        for (int i = 0; i < count; i++) {
            tenantByHash.put(ApiKeys.hash(prefix + i), prefix + i);
        }
        for (String name : names) {
            tenantByHash.put(ApiKeys.hash(name), name);
        }
        Map<String, String> keys = Map.copyOf(tenantByHash);
        return apiKey -> {
            String tenant = keys.get(ApiKeys.hash(apiKey));
            return tenant == null ? TenantLookup.UNKNOWN_KEY : TenantLookup.verified(tenant);
        };
    }
}
