package dev.tollgate.redis;

import dev.tollgate.core.limits.LimitState;

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
