package dev.tollgate.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How the gateway treats requests at its edge, before and after limiting them
 * ({@code tollgate.paths.*}, {@code tollgate.forwarding.*}).
 *
 * @param paths      How request paths are read before routing.
 * @param forwarding What the backend is told about the caller.
 */
@ConfigurationProperties("tollgate")
@Validated
public record EdgeProperties(@DefaultValue PathProperties paths, @DefaultValue ForwardingProperties forwarding) {

    /**
     * @param normalize Whether each request path is put in one canonical form before routes are matched (dot-segments
     *                  resolved, empty segments merged) and refused with 400 if it has none (encoded dot-segments,
     *                  encoded slashes or backslashes, path parameters, control characters, .. above the root), so
     *                  that route, rule and backend all read the same path.
     */
    public record PathProperties(@DefaultValue("true") boolean normalize) {
    }

    /**
     * @param stripApiKey  Whether the API key header is removed from requests before they are forwarded: backends
     *                     have no use for the tenant's secret, and would log it.
     * @param tenantHeader Header that tells the backend which tenant a request was admitted as; set by the gateway
     *                     only, any value the client sent is dropped. Empty for none.
     */
    public record ForwardingProperties(@DefaultValue("true") boolean stripApiKey,
                                       @DefaultValue("X-Tenant-Id") String tenantHeader) {

        public ForwardingProperties {
            tenantHeader = tenantHeader == null ? "" : tenantHeader.strip();
            if (!tenantHeader.isEmpty() && !HeaderNames.isToken(tenantHeader)) {
                throw new IllegalArgumentException("tollgate.forwarding.tenant-header must be a header name, was '"
                        + tenantHeader + "'");
            }
        }

        /** The tenant header, or null if none is sent. */
        public String tenantHeaderOrNull() {
            return tenantHeader.isEmpty() ? null : tenantHeader;
        }
    }
}
