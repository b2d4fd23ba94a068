package dev.tollgate.spring.settings;

import dev.tollgate.core.address.Cidr;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Who a request comes from: the identity policy of each route, how the client's address is read, and
 * the limit on failed authentication ({@code tollgate.routes.*}, {@code tollgate.client-address.*},
 * {@code tollgate.auth-failures.*}). Checked when bound, naming the setting.
 *
 * @param routes        Per route id: how the global filter identifies callers on the route.
 * @param clientAddress How the client's address is found, and grouped, for anonymous callers and failed
 *                      authentication.
 * @param authFailures  The limit on failed authentication (401 answers) per client address.
 */
@ConfigurationProperties("tollgate")
public record IdentityProperties(@DefaultValue Map<String, RouteProperties> routes,
                                 @DefaultValue ClientAddressProperties clientAddress,
                                 @DefaultValue AuthFailureProperties authFailures) {

    public IdentityProperties {
        routes = Map.copyOf(routes);
        for (Map.Entry<String, RouteProperties> route : new TreeMap<>(routes).entrySet()) {
            route.getValue().policy("tollgate.routes." + route.getKey() + ".identity");
        }
    }

    /** The identity policy of every route that has one other than {@link IdentityPolicy#API_KEY}. */
    public Map<String, IdentityPolicy> policies() {
        Map<String, IdentityPolicy> policies = new HashMap<>();
        routes.forEach((route, properties) -> {
            IdentityPolicy policy = properties.policy("tollgate.routes." + route + ".identity");
            if (policy != IdentityPolicy.API_KEY) {
                policies.put(route, policy);
            }
        });
        return Map.copyOf(policies);
    }

    /**
     * @param identity api-key (a valid API key is required), optional (a key is used when sent; without one the caller
     *                 is anonymous), anonymous (every caller limited by client address, keys ignored) or none (not
     *                 limited).
     */
    public record RouteProperties(@DefaultValue("api-key") String identity) {

        IdentityPolicy policy(String setting) {
            IdentityPolicy policy = IdentityPolicy.parse(identity);
            if (policy == null) {
                throw new InvalidSettingException(setting, identity, setting
                        + " must be api-key, optional, anonymous or none, was '" + identity + "'");
            }
            return policy;
        }
    }

    /** The header trusted proxies tell the client's address in. */
    public enum ForwardedHeader {
        /** {@code X-Forwarded-For: client, proxy1, proxy2} (what most load balancers write). */
        X_FORWARDED_FOR,
        /** RFC 7239's {@code Forwarded: for=client, for=proxy1}. */
        FORWARDED
    }

    /**
     * @param trustedProxies The proxies (CIDR blocks, such as 10.0.0.0/8 or 2001:db8::/32, or single addresses) whose
     *                       word on the client's address is taken: only when the connection comes from one of them is
     *                       the right-most address of the forwarding header that is not itself a trusted proxy the
     *                       client. Empty: the connection's peer is always the client.
     * @param header         The header the trusted proxies write: x-forwarded-for or forwarded (RFC 7239). The other is
     *                       ignored: a client could have written it.
     * @param ipv4Prefix     IPv4 callers are grouped by this many leading bits (1 to 32; 32: each address alone).
     * @param ipv6Prefix     IPv6 callers are grouped by this many leading bits (1 to 128; 64: one customer usually holds
     *                       a whole /64).
     */
    public record ClientAddressProperties(@DefaultValue List<String> trustedProxies,
                                          @DefaultValue("x-forwarded-for") ForwardedHeader header,
                                          @DefaultValue("32") int ipv4Prefix,
                                          @DefaultValue("64") int ipv6Prefix) {

        public ClientAddressProperties {
            trustedProxies = List.copyOf(trustedProxies);
            for (int i = 0; i < trustedProxies.size(); i++) {
                if (!Cidr.isCidr(trustedProxies.get(i))) {
                    String setting = "tollgate.client-address.trusted-proxies[" + i + "]";
                    throw new InvalidSettingException(setting, trustedProxies.get(i), setting
                            + " must be an IP address or a CIDR block (10.0.0.0/8, 2001:db8::/32), was '"
                            + trustedProxies.get(i) + "'");
                }
            }
            if (ipv4Prefix < 1 || ipv4Prefix > 32) {
                throw new InvalidSettingException("tollgate.client-address.ipv4-prefix", Integer.toString(ipv4Prefix),
                        "tollgate.client-address.ipv4-prefix must be 1 to 32, was " + ipv4Prefix);
            }
            if (ipv6Prefix < 1 || ipv6Prefix > 128) {
                throw new InvalidSettingException("tollgate.client-address.ipv6-prefix", Integer.toString(ipv6Prefix),
                        "tollgate.client-address.ipv6-prefix must be 1 to 128, was " + ipv6Prefix);
            }
        }
    }

    /**
     * @param enabled      Whether failed authentication (401 answers) is limited per client address.
     * @param limit        Failures an address may have in a burst, refilled evenly over period; past them its requests
     *                     that would be authenticated are answered 429 with Retry-After before any key is looked up.
     * @param period       The time in which limit failures are refilled.
     * @param maxAddresses Addresses tracked at once by each instance (the memory bound); failures of further addresses
     *                     are not counted until tracked ones have refilled and been dropped.
     */
    public record AuthFailureProperties(@DefaultValue("true") boolean enabled,
                                        @DefaultValue("30") int limit,
                                        @DefaultValue("1m") Duration period,
                                        @DefaultValue("100000") int maxAddresses) {

        public AuthFailureProperties {
            if (limit < 1) {
                throw new InvalidSettingException("tollgate.auth-failures.limit", Integer.toString(limit),
                        "tollgate.auth-failures.limit must be 1 or more, was " + limit);
            }
            if (period == null || period.toMillis() < 1) {
                throw new InvalidSettingException("tollgate.auth-failures.period", String.valueOf(period),
                        "tollgate.auth-failures.period must be 1ms or more, was " + period);
            }
            if (maxAddresses < 1) {
                throw new InvalidSettingException("tollgate.auth-failures.max-addresses", Integer.toString(maxAddresses),
                        "tollgate.auth-failures.max-addresses must be 1 or more, was " + maxAddresses);
            }
        }
    }
}
