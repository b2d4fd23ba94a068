package dev.tollgate.spring.settings;

import dev.tollgate.core.LeasePolicy;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Hot keys ({@code tollgate.hot-keys.*}): token leases and sharded buckets. See
 * {@code docs/hot-keys-and-cluster.md} for when to use which, and their bounds.
 *
 * @param leases Token leases: a key this instance sees above a rate takes tokens in batches.
 * @param shards Sharded buckets (the number of shards is a property of each rule).
 */
@ConfigurationProperties("tollgate.hot-keys")
public record HotKeyProperties(@DefaultValue Leases leases, @DefaultValue Shards shards) {

    /**
     * @param enabled              Whether hot keys are leased at all.
     * @param hotRequestsPerSecond Requests per second one instance sees for a key from which it leases tokens in batches.
     * @param duration             A batch is sized to last this long at the key's observed rate.
     * @param maxBatchTokens       Largest batch, in tokens.
     * @param maxCapacityShare     Largest batch as a share of the bucket's capacity, in (0, 1].
     * @param ttl                  Unspent leased tokens are given back after this long.
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
                throw new InvalidSettingException("tollgate.hot-keys.leases", null,
                        "tollgate.hot-keys.leases: " + e.getMessage());
            }
        }

        public LeasePolicy policy() {
            return policy(hotRequestsPerSecond, duration, maxBatchTokens, maxCapacityShare, ttl);
        }

        private static LeasePolicy policy(double hot, Duration duration, long maxBatch, double share, Duration ttl) {
            return new LeasePolicy(hot, duration.toMillis(), maxBatch, share, ttl.toMillis());
        }
    }

    /** @param secondChance Whether a request that its first shard rejects tries one other shard. */
    public record Shards(@DefaultValue("true") boolean secondChance) {
    }
}
