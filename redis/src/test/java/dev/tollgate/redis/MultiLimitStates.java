package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.limits.LimitKey;
import dev.tollgate.core.limits.LimitState;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The field values {@code multi_limit.lua} writes, read and written from Java in tests: a token bucket
 * is 13 bytes (micro-tokens in 7, the refill time in ms in 6), a quota 11 bytes (the window's start in
 * ms in 6, the count in 5), all big-endian; any other length counts as missing.
 */
final class MultiLimitStates {

    private MultiLimitStates() {
    }

    /** The state a field holds, {@code null} if none (or one of no known kind). */
    static LimitState decode(byte[] value) {
        if (value == null) {
            return null;
        }
        if (value.length == 13) {
            return new LimitState.Bucket(read(value, 0, 7), read(value, 7, 6));
        }
        if (value.length == 11) {
            return new LimitState.Quota(read(value, 0, 6), read(value, 6, 5));
        }
        return null;
    }

    static byte[] encode(LimitState state) {
        if (state instanceof LimitState.Bucket bucket) {
            byte[] out = new byte[13];
            write(out, 0, 7, bucket.tokens());
            write(out, 7, 6, bucket.tsMillis());
            return out;
        }
        LimitState.Quota quota = (LimitState.Quota) state;
        byte[] out = new byte[11];
        write(out, 0, 6, quota.windowStartMillis());
        write(out, 6, 5, quota.used());
        return out;
    }

    /** The state Redis holds for {@code key} where {@code layout} keeps it, {@code null} if none. */
    static LimitState inRedis(RedisClusterCommands<byte[], byte[]> bytes, LimitKey key, MultiLimitScript.Layout layout) {
        return decode(bytes.hget(MultiLimitScript.redisKey(key, layout).getBytes(StandardCharsets.UTF_8),
                MultiLimitScript.field(key, layout).getBytes(StandardCharsets.UTF_8)));
    }

    /** The whole tokens of the bucket Redis holds for {@code key} (which must be a bucket). */
    static long wholeTokens(RedisClusterCommands<byte[], byte[]> bytes, LimitKey key, MultiLimitScript.Layout layout) {
        LimitState state = inRedis(bytes, key, layout);
        assertThat(state).isInstanceOf(LimitState.Bucket.class);
        return ((LimitState.Bucket) state).tokens() / 1_000_000L;
    }

    /** Redis's clock ({@code TIME}), in ms: the one the script decides at. */
    static long redisNowMillis(RedisClusterCommands<byte[], byte[]> bytes) {
        List<byte[]> time = bytes.time();
        return Long.parseLong(new String(time.get(0), StandardCharsets.US_ASCII)) * 1000
                + Long.parseLong(new String(time.get(1), StandardCharsets.US_ASCII)) / 1000;
    }

    private static long read(byte[] bytes, int from, int length) {
        long value = 0;
        for (int i = from; i < from + length; i++) {
            value = (value << 8) | (bytes[i] & 0xFF);
        }
        return value;
    }

    private static void write(byte[] out, int from, int length, long value) {
        for (int i = from + length - 1; i >= from; i--) {
            out[i] = (byte) value;
            value >>>= 8;
        }
    }
}
