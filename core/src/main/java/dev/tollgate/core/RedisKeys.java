package dev.tollgate.core;

import java.nio.charset.StandardCharsets;

/**
 * Redis key encoding: {@code rl:{tenant}:route}.
 *
 * <p>The braces are a Redis Cluster hash tag, so every bucket of a tenant hashes to the same slot.
 * Ids are escaped so that any pair of ids gives a key of its own and a tenant id cannot end the hash
 * tag early: printable ASCII other than {@code % { } :} is kept as is; every other character is
 * written as {@code %XX} per UTF-8 byte, and an unpaired UTF-16 surrogate (not encodable in UTF-8)
 * as {@code %uXXXX}. The result is plain ASCII, so distinct pairs give distinct keys in bytes too,
 * and the tag between the first {@code {} and the first {@code }} is exactly the escaped tenant.
 *
 * <p>Shards of a bucket ({@link ShardedBucketStore}) put the shard's index inside the hash tag,
 * {@code rl:{tenant:i}:route}, so that the shards of one rule hash to different slots and spread
 * over the cluster's nodes. An escaped tenant has no {@code :}, so a shard's tag is never a whole
 * bucket's tag, and (tenant, route, shard) can be read back from the key: shard keys are distinct
 * from each other and from whole-bucket keys. Shard {@code i} of every route of a tenant shares a
 * slot.
 */
public final class RedisKeys {

    public static final String BUCKET_PREFIX = "rl:";

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private RedisKeys() {
    }

    /** The key of the bucket of {@code tenant} on {@code route}; both must be non-empty. */
    public static String bucket(String tenant, String route) {
        if (tenant.isEmpty()) {
            // "{}" is no hash tag to Redis Cluster: the tenant's keys would scatter.
            throw new IllegalArgumentException("tenant must not be empty");
        }
        return BUCKET_PREFIX + '{' + escape(tenant) + "}:" + escape(route);
    }

    /** The key of shard {@code shard} (0 or more) of the bucket of {@code tenant} on {@code route}. */
    public static String shard(String tenant, String route, int shard) {
        if (tenant.isEmpty()) {
            throw new IllegalArgumentException("tenant must not be empty");
        }
        if (shard < 0) {
            throw new IllegalArgumentException("shard must be 0 or more, was " + shard);
        }
        return BUCKET_PREFIX + '{' + escape(tenant) + ':' + shard + "}:" + escape(route);
    }

    /** The id with every character outside the safe set escaped; the id itself if none is. */
    public static String escape(String id) {
        int first = firstUnsafe(id);
        if (first < 0) {
            return id;
        }
        StringBuilder out = new StringBuilder(id.length() + 16).append(id, 0, first);
        for (int i = first; i < id.length(); ) {
            char c = id.charAt(i);
            if (isSafe(c)) {
                out.append(c);
                i++;
            } else if (Character.isHighSurrogate(c) && i + 1 < id.length()
                    && Character.isLowSurrogate(id.charAt(i + 1))) {
                appendUtf8(out, id.substring(i, i + 2));
                i += 2;
            } else if (Character.isSurrogate(c)) {
                out.append("%u").append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF])
                        .append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
                i++;
            } else {
                appendUtf8(out, String.valueOf(c));
                i++;
            }
        }
        return out.toString();
    }

    private static int firstUnsafe(String id) {
        for (int i = 0; i < id.length(); i++) {
            if (!isSafe(id.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isSafe(char c) {
        return c > ' ' && c < 0x7F && c != '%' && c != '{' && c != '}' && c != ':';
    }

    private static void appendUtf8(StringBuilder out, String codePoint) {
        for (byte b : codePoint.getBytes(StandardCharsets.UTF_8)) {
            out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
        }
    }
}
