package dev.tollgate.spring.settings;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * What Tollgate tells clients and operators ({@code tollgate.headers.*}, {@code tollgate.metrics.*},
 * {@code tollgate.logging.*}).
 *
 * @param headers Which rate-limit response headers to send.
 * @param metrics Opt-in per-tenant metrics.
 * @param logging How rejections and unparseable requests are logged.
 */
@ConfigurationProperties("tollgate")
@Validated
public record ObservabilityProperties(
        @DefaultValue HeaderProperties headers,
        @DefaultValue @Valid MetricsProperties metrics,
        @DefaultValue @Valid LoggingProperties logging) {

    /**
     * @param xRateLimit Whether to send X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset.
     * @param ietf       Whether to send RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers).
     */
    public record HeaderProperties(@DefaultValue("true") boolean xRateLimit, @DefaultValue("true") boolean ietf) {
    }

    /**
     * @param tenantTags Tenants whose decisions are also counted with a tenant tag; keep the list short (every
     *                   tenant listed adds metric series), at most 1000.
     */
    public record MetricsProperties(@DefaultValue @Size(max = 1000) List<String> tenantTags) {

        public MetricsProperties {
            tenantTags = List.copyOf(tenantTags);
        }

        public Set<String> tenantTagSet() {
            return Set.copyOf(tenantTags);
        }
    }

    /**
     * @param rejectionsPerSecond        At most this many rejections are logged per second (with a count of those
     *                                   left out); 0 turns rejection logging off.
     * @param malformedRequestsPerSecond At most this many requests that could not be parsed as HTTP are logged per
     *                                   second (with a count of those left out); 0 turns that logging off.
     */
    public record LoggingProperties(@DefaultValue("5") @DecimalMin("0") @DecimalMax("10000") double rejectionsPerSecond,
                                    @DefaultValue("5") @DecimalMin("0") @DecimalMax("10000")
                                    double malformedRequestsPerSecond) {
    }
}
