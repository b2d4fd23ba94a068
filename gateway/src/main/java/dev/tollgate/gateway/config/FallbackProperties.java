package dev.tollgate.gateway.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The local fallback used while Redis is unreachable ({@code tollgate.fallback.*}): each instance
 * enforces {@code 1/N} of every rule, N being the number of live gateway instances.
 *
 * @param instances         N to assume when it was never learnt from Redis (Redis unreachable since
 *                          this instance started); set it to your usual instance count
 * @param heartbeatInterval how often this instance announces itself in Redis and reads N
 * @param heartbeatTtl      an instance silent for this long is no longer counted
 * @param evictionInterval  how often full (idle) local buckets are dropped to free memory
 */
@ConfigurationProperties("tollgate.fallback")
public record FallbackProperties(
        @DefaultValue("1") int instances,
        @DefaultValue("1s") Duration heartbeatInterval,
        @DefaultValue("3s") Duration heartbeatTtl,
        @DefaultValue("10s") Duration evictionInterval) {

    public FallbackProperties {
        if (instances < 1) {
            throw new IllegalArgumentException("tollgate.fallback.instances must be at least 1, was " + instances);
        }
        RedisGuardProperties.requirePositive("tollgate.fallback.heartbeat-interval", heartbeatInterval);
        RedisGuardProperties.requirePositive("tollgate.fallback.heartbeat-ttl", heartbeatTtl);
        RedisGuardProperties.requirePositive("tollgate.fallback.eviction-interval", evictionInterval);
        if (heartbeatTtl.compareTo(heartbeatInterval) <= 0) {
            throw new IllegalArgumentException("tollgate.fallback.heartbeat-ttl (" + heartbeatTtl
                    + ") must be longer than tollgate.fallback.heartbeat-interval (" + heartbeatInterval + ")");
        }
    }
}
