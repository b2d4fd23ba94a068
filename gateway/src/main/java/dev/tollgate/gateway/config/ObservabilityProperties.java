package dev.tollgate.gateway.config;

import java.util.List;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * What Tollgate tells clients and operators ({@code tollgate.headers.*}, {@code tollgate.metrics.*},
 * {@code tollgate.logging.*}).
 *
 * @param headers which rate-limit response headers to send
 * @param metrics opt-in per-tenant metrics
 * @param logging how rejections are logged
 */
@ConfigurationProperties("tollgate")
public record ObservabilityProperties(
        @DefaultValue HeaderProperties headers,
        @DefaultValue MetricsProperties metrics,
        @DefaultValue LoggingProperties logging) {

    /**
     * @param xRateLimit {@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset}
     * @param ietf       {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers)
     */
    public record HeaderProperties(@DefaultValue("true") boolean xRateLimit, @DefaultValue("true") boolean ietf) {
    }

    /**
     * @param tenantTags tenants whose decisions are also counted with a {@code tenant} tag; keep the
     *                   list short (every tenant listed adds series)
     */
    public record MetricsProperties(@DefaultValue List<String> tenantTags) {

        public MetricsProperties {
            tenantTags = List.copyOf(tenantTags);
            if (tenantTags.size() > 1000) {
                throw new IllegalArgumentException("tollgate.metrics.tenant-tags lists " + tenantTags.size()
                        + " tenants; at most 1000 (each adds metric series)");
            }
        }

        public Set<String> tenantTagSet() {
            return Set.copyOf(tenantTags);
        }
    }

    /**
     * @param rejectionsPerSecond at most this many rejections are logged per second (with a count of
     *                            those left out); 0 turns rejection logging off
     */
    public record LoggingProperties(@DefaultValue("5") double rejectionsPerSecond) {

        public LoggingProperties {
            if (rejectionsPerSecond < 0 || rejectionsPerSecond > 10_000) {
                throw new IllegalArgumentException(
                        "tollgate.logging.rejections-per-second must be between 0 and 10000, was " + rejectionsPerSecond);
            }
        }
    }
}
