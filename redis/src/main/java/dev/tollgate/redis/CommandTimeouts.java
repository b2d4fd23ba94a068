package dev.tollgate.redis;

import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.protocol.RedisCommand;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Lettuce's command timeout for every command except the script calls {@link ScriptCalls} makes.
 *
 * <p>Those carry a deadline of their own, counted from the write and checked on the loop that reads
 * the reply, far shorter than any command timeout; once it passes, the call's requests are decided
 * without it. A Lettuce timeout on them would only arm and cancel one more timer per call on the
 * request path (a wheel-timer entry and a completion callback) and fire for nothing. Every other
 * command (script loads, heartbeats, cluster topology) keeps the timeout, so that none waits forever.
 * Script calls are recognised by the reply type only they use ({@link LongsOutput}).
 */
final class CommandTimeouts extends TimeoutOptions.TimeoutSource {

    private final long timeoutNanos;

    private CommandTimeouts(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
    }

    /** Timeout options with {@code timeout} for every command but {@link ScriptCalls}'. */
    static TimeoutOptions exceptScriptCalls(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("command timeout must be positive, was " + timeout);
        }
        return TimeoutOptions.builder().timeoutSource(new CommandTimeouts(timeout)).build();
    }

    @Override
    public long getTimeout(RedisCommand<?, ?, ?> command) {
        return command.getOutput() instanceof LongsOutput ? 0 : timeoutNanos; // 0: no Lettuce timeout
    }

    @Override
    public TimeUnit getTimeUnit() {
        return TimeUnit.NANOSECONDS;
    }
}
