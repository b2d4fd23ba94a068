package dev.tollgate.core;

/**
 * Identifies one bucket: a tenant and a route, and for a sharded rule (see
 * {@link ShardedBucketStore}) one of its shards. Any non-empty strings are accepted; the Redis key
 * is built by {@link RedisKeys}, which keeps distinct keys distinct.
 *
 * @param shard the shard's index, {@code 0 <= shard < }{@link #MAX_SHARDS}, or {@link #WHOLE} for a
 *              bucket that is not split
 */
public record BucketKey(String tenant, String route, int shard) {

    /** {@link #shard()} of a bucket that is not split into shards. */
    public static final int WHOLE = -1;

    /** Shards a bucket may be split into, at most. */
    public static final int MAX_SHARDS = 1024;

    public BucketKey {
        if (tenant == null || tenant.isEmpty()) {
            throw new IllegalArgumentException("tenant must be a non-empty string, was " + quote(tenant));
        }
        if (route == null || route.isEmpty()) {
            throw new IllegalArgumentException("route must be a non-empty string, was " + quote(route));
        }
        if (shard < WHOLE || shard >= MAX_SHARDS) {
            throw new IllegalArgumentException("shard must be -1 (whole) or in [0, " + MAX_SHARDS
                    + "), was " + shard);
        }
    }

    /** The whole (unsharded) bucket of {@code tenant} on {@code route}. */
    public BucketKey(String tenant, String route) {
        this(tenant, route, WHOLE);
    }

    /** Shard {@code index} of this bucket. */
    public BucketKey shard(int index) {
        if (shard != WHOLE) {
            throw new IllegalStateException("a shard cannot be split again: " + this);
        }
        return new BucketKey(tenant, route, index);
    }

    public boolean isShard() {
        return shard != WHOLE;
    }

    /**
     * {@code rl:{tenant}:route} for a whole bucket, {@code rl:{tenant:shard}:route} for a shard;
     * escaped, see {@link RedisKeys}.
     */
    public String redisKey() {
        return shard == WHOLE ? RedisKeys.bucket(tenant, route) : RedisKeys.shard(tenant, route, shard);
    }

    /*
     * Written out rather than left to the record: a key is hashed and compared a few times per
     * request (lease and fallback maps), and the generated versions go through method handles that
     * showed in the request path's profile. Same contract: all three components.
     */
    @Override
    public int hashCode() {
        return (31 * tenant.hashCode() + route.hashCode()) * 31 + shard;
    }

    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof BucketKey key
                && shard == key.shard && tenant.equals(key.tenant) && route.equals(key.route);
    }

    private static String quote(String s) {
        return s == null ? "null" : '"' + s + '"';
    }
}
