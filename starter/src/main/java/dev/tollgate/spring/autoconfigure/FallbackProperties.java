package dev.tollgate.spring.autoconfigure;

import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The local fallback used while Redis is unreachable ({@code tollgate.fallback.*}): each instance
 * enforces {@code 1/N} of every rule, N being the number of live gateway instances.
 *
 * @param instances         Instance count N to assume when it was never learnt from heartbeats (Redis unreachable
 *                          since this instance started); set it to your usual instance count.
 * @param heartbeatInterval How often this instance announces itself in Redis and reads N.
 * @param heartbeatTtl      An instance silent for this long is no longer counted in N.
 * @param evictionInterval  How often full (idle) local buckets are dropped to free memory.
 */
@ConfigurationProperties("tollgate.fallback")
@Validated
public record FallbackProperties(
        @DefaultValue("1") @Min(1) int instances,
        @DefaultValue("1s") @DurationMin(nanos = 1) Duration heartbeatInterval,
        @DefaultValue("3s") @DurationMin(nanos = 1) Duration heartbeatTtl,
        @DefaultValue("10s") @DurationMin(nanos = 1) Duration evictionInterval) {

    public FallbackProperties {
        if (heartbeatTtl != null && heartbeatInterval != null && heartbeatTtl.compareTo(heartbeatInterval) <= 0) {
            throw new IllegalArgumentException("tollgate.fallback.heartbeat-ttl (" + heartbeatTtl
                    + ") must be longer than tollgate.fallback.heartbeat-interval (" + heartbeatInterval + ")");
        }
    }
}
