package dev.tollgate.spring.settings;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The local fallback used while Redis is unreachable ({@code tollgate.fallback.*}): each instance
 * enforces {@code 1/N} of every rule, N being the number of live gateway instances, learnt from
 * heartbeats in Redis, else in PostgreSQL, else the last count learnt or saved on disk (see
 * {@code LiveInstances}), and never below {@code instances}.
 *
 * @param instances         The smallest N the fallback divides limits by, whatever the heartbeats say: a floor. With
 *                          it set to the fewest instances you run, a fleet can never admit more than (instances
 *                          running / this) times a limit while it falls back.
 * @param fleet             Name under which this instance is counted in PostgreSQL's heartbeats; by default the
 *                          address of the Redis it uses (host:port/database, or the cluster's nodes), so that
 *                          instances count together exactly when they share a Redis (one per region, say). Set it
 *                          when instances name one Redis differently (by host name and by address, say).
 * @param heartbeatInterval How often this instance announces itself in Redis and PostgreSQL and reads N.
 * @param heartbeatTtl      An instance silent for this long is no longer counted in N.
 * @param evictionInterval  How often full (idle) local buckets are dropped to free memory.
 */
@ConfigurationProperties("tollgate.fallback")
@Validated
public record FallbackProperties(
        @DefaultValue("1") @Min(1) int instances,
        @Pattern(regexp = "\\S{1,200}") String fleet,
        @DefaultValue("1s") @DurationMin(nanos = 1) Duration heartbeatInterval,
        @DefaultValue("3s") @DurationMin(nanos = 1) Duration heartbeatTtl,
        @DefaultValue("10s") @DurationMin(nanos = 1) Duration evictionInterval) {

    public FallbackProperties {
        if (heartbeatTtl != null && heartbeatInterval != null && heartbeatTtl.compareTo(heartbeatInterval) <= 0) {
            throw new InvalidSettingException("tollgate.fallback.heartbeat-ttl", String.valueOf(heartbeatTtl),
                    "tollgate.fallback.heartbeat-ttl (" + heartbeatTtl + ") must be longer than"
                            + " tollgate.fallback.heartbeat-interval (" + heartbeatInterval + ")");
        }
    }
}
