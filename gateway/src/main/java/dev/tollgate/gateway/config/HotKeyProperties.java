package dev.tollgate.gateway.config;

import dev.tollgate.core.LeasePolicy;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Hot keys ({@code tollgate.hot-keys.*}): token leases and sharded buckets. See
 * {@code docs/hot-keys-and-cluster.md} for when to use which, and their bounds.
 *
 * @param leases token leases: a key this instance sees above a rate takes tokens in batches
 * @param shards sharded buckets (the number of shards is a property of each rule)
 */
@ConfigurationProperties("tollgate.hot-keys")
public record HotKeyProperties(@DefaultValue Leases leases, @DefaultValue Shards shards) {

    /**
     * @param enabled              whether hot keys are leased at all
     * @param hotRequestsPerSecond requests/s one instance sees for a key from which it leases
     * @param duration             a batch is sized to last this long at the key's observed rate
     * @param maxBatchTokens       largest batch, in tokens
     * @param maxCapacityShare     largest batch as a share of the bucket's capacity
     * @param ttl                  unspent leased tokens are given back after this long
     */
    public record Leases(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("100") double hotRequestsPerSecond,
            @DefaultValue("100ms") Duration duration,
            @DefaultValue("50") long maxBatchTokens,
            @DefaultValue("0.1") double maxCapacityShare,
            @DefaultValue("1s") Duration ttl) {

        public Leases {
            try {
                policy(hotRequestsPerSecond, duration, maxBatchTokens, maxCapacityShare, ttl);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tollgate.hot-keys.leases: " + e.getMessage(), e);
            }
        }

        public LeasePolicy policy() {
            return policy(hotRequestsPerSecond, duration, maxBatchTokens, maxCapacityShare, ttl);
        }

        private static LeasePolicy policy(double hot, Duration duration, long maxBatch, double share, Duration ttl) {
            return new LeasePolicy(hot, duration.toMillis(), maxBatch, share, ttl.toMillis());
        }
    }

    /** @param secondChance whether a request its first shard rejects tries one other shard */
    public record Shards(@DefaultValue("true") boolean secondChance) {
    }
}
