package dev.tollgate.core;

/**
 * What one request asks of the limiter, worked out once from its rule and passed down the whole
 * chain (failover, sharding, leasing, the store): which bucket, its limits in the arithmetic's
 * units, and how many shards the rule splits the bucket into.
 *
 * @param shards 1 (not split) to {@link RateLimitRule#MAX_SHARDS}; see {@link ShardedBucketStore}
 */
public record BucketRequest(BucketKey key, BucketLimits limits, int shards) {

    public BucketRequest {
        if (key == null || limits == null) {
            throw new IllegalArgumentException("a bucket request needs a key and limits");
        }
        if (key.isShard()) {
            throw new IllegalArgumentException("a request names the whole bucket, not a shard: " + key);
        }
        if (shards < 1 || shards > RateLimitRule.MAX_SHARDS) {
            throw new IllegalArgumentException("shards must be between 1 and " + RateLimitRule.MAX_SHARDS
                    + ", was " + shards);
        }
    }

    /** The request of {@code tenant} on {@code route} under {@code rule}. */
    public static BucketRequest of(String tenant, String route, RateLimitRule rule) {
        return new BucketRequest(new BucketKey(tenant, route), rule.limits(), rule.shards());
    }

    /** Whether the rule splits this bucket into shards. */
    public boolean isSharded() {
        return shards > 1;
    }
}
