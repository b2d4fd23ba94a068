package dev.tollgate.core;

/**
 * Identifies one bucket: a tenant and a route. Any non-empty strings are accepted; the Redis key
 * is built by {@link RedisKeys}, which keeps distinct pairs distinct.
 */
public record BucketKey(String tenant, String route) {

    public BucketKey {
        if (tenant == null || tenant.isEmpty()) {
            throw new IllegalArgumentException("tenant must be a non-empty string, was " + quote(tenant));
        }
        if (route == null || route.isEmpty()) {
            throw new IllegalArgumentException("route must be a non-empty string, was " + quote(route));
        }
    }

    /** {@code rl:{tenant}:route}, escaped; see {@link RedisKeys#bucket(String, String)}. */
    public String redisKey() {
        return RedisKeys.bucket(tenant, route);
    }

    private static String quote(String s) {
        return s == null ? "null" : '"' + s + '"';
    }
}
