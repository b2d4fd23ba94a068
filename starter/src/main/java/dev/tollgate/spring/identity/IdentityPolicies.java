package dev.tollgate.spring.identity;

import dev.tollgate.spring.settings.IdentityPolicy;
import java.util.Map;

/** The identity policy of each route: {@link IdentityPolicy#API_KEY} unless configured otherwise. */
public final class IdentityPolicies {

    private final Map<String, IdentityPolicy> byRoute;

    /** @param byRoute the routes with a policy other than the default */
    public IdentityPolicies(Map<String, IdentityPolicy> byRoute) {
        this.byRoute = Map.copyOf(byRoute);
    }

    /** Every route requires an API key. */
    public static IdentityPolicies apiKeyEverywhere() {
        return new IdentityPolicies(Map.of());
    }

    public IdentityPolicy of(String routeId) {
        if (byRoute.isEmpty()) {
            return IdentityPolicy.API_KEY;
        }
        return byRoute.getOrDefault(routeId, IdentityPolicy.API_KEY);
    }
}
