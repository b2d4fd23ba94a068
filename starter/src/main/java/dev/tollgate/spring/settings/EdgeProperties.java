package dev.tollgate.spring.settings;

import jakarta.validation.Valid;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How the gateway treats requests at its edge, before and after limiting them
 * ({@code tollgate.paths.*}, {@code tollgate.forwarding.*}, {@code tollgate.server.*}).
 *
 * @param paths      How request paths are read before routing.
 * @param forwarding What the backend is told about the caller.
 * @param server     Time limits on client connections to the gateway port.
 */
@ConfigurationProperties("tollgate")
@Validated
public record EdgeProperties(@DefaultValue PathProperties paths, @DefaultValue ForwardingProperties forwarding,
                             @DefaultValue @Valid ServerProperties server) {

    /**
     * @param normalize Whether each request path is put in one canonical form before routes are matched (dot-segments
     *                  resolved, empty segments merged) and refused with 400 if it has none (encoded dot-segments,
     *                  encoded slashes or backslashes, path parameters, control characters, .. above the root), so
     *                  that route, rule and backend all read the same path. Unset: on where the global filter
     *                  limits every route (tollgate.enabled and tollgate.global-filter.enabled), off otherwise.
     */
    public record PathProperties(Boolean normalize) {
    }

    /**
     * @param stripApiKey  Whether the API key header is removed from requests before they are forwarded: backends
     *                     have no use for the tenant's secret, and would log it. Unset: on where the global filter
     *                     limits every route (tollgate.enabled and tollgate.global-filter.enabled), off otherwise.
     * @param tenantHeader Header that tells the backend which tenant the global filter admitted a request as; set by
     *                     the gateway only, any value the client sent is dropped (only where the global filter
     *                     limits every route: nothing else sets it). Empty for none.
     */
    public record ForwardingProperties(Boolean stripApiKey,
                                       @DefaultValue("X-Tenant-Id") String tenantHeader) {

        public ForwardingProperties {
            tenantHeader = tenantHeader == null ? "" : tenantHeader.strip();
            if (!tenantHeader.isEmpty() && !HeaderNames.isToken(tenantHeader)) {
                throw new InvalidSettingException("tollgate.forwarding.tenant-header", tenantHeader,
                        "tollgate.forwarding.tenant-header must be a header name, was '" + tenantHeader + "'");
            }
        }

        /** The tenant header, or null if none is sent. */
        public String tenantHeaderOrNull() {
            return tenantHeader.isEmpty() ? null : tenantHeader;
        }
    }

    /**
     * @param idleTimeout        A client connection with no request in progress is closed after this long without a
     *                           byte from the client.
     * @param requestReadTimeout A client connection is closed if a request's head (request line and headers) has not
     *                           fully arrived this long after its first bytes; where the body rules are on (see
     *                           request-body-timeout), a body that pauses this long is answered 408 and its
     *                           connection closed.
     * @param requestBodyTimeout A request whose body has not fully arrived this long after its head, however steadily
     *                           it trickles in, is answered 408 and its connection closed, and so is one whose body
     *                           pauses longer than request-read-timeout; the request forwarded to the backend is cut,
     *                           never completed. 0 turns both body rules off. Unset: 60s where the global filter
     *                           limits every route (tollgate.enabled and tollgate.global-filter.enabled), off
     *                           otherwise. Raise it for large uploads over slow links.
     */
    public record ServerProperties(@DefaultValue("60s") @DurationMin(millis = 1) Duration idleTimeout,
                                   @DefaultValue("20s") @DurationMin(millis = 1) Duration requestReadTimeout,
                                   Duration requestBodyTimeout) {

        public ServerProperties {
            if (requestBodyTimeout != null && requestBodyTimeout.isNegative()) {
                throw new InvalidSettingException("tollgate.server.request-body-timeout", requestBodyTimeout.toString(),
                        "tollgate.server.request-body-timeout must be 0 (off) or more, was " + requestBodyTimeout);
            }
        }
    }
}
