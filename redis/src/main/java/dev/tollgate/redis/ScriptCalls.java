package dev.tollgate.redis;

import dev.tollgate.core.MonotonicClock;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.ThreadExecutorMap;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs Tollgate's Lua scripts on Redis with a reply deadline that judges Redis, not this gateway.
 *
 * <p>A call is written on the connection's own I/O event loop, and its deadline is armed there at
 * the moment of writing. When the deadline passes, the check does not fail the call at once: it
 * looks again after the loop's next turn at its sockets (a Netty event loop reads what has arrived
 * before it runs the timers that came due). So a reply that reached this machine in time is always
 * read before the call is failed, even when the I/O thread was kept off the CPU for longer than the
 * deadline: the check fails a call only when Redis has really not answered for the deadline since
 * the call was written. Time the request spent before that (in this gateway's HTTP event loop, or
 * waiting for the I/O thread on a busy machine) is never charged to Redis; the grace costs at most
 * one turn of the I/O loop. The
 * guarantee needs the reply to be read on the loop that checks the deadline: true of a standalone
 * connection (its lane's loop is its own). A cluster connection reaches each master over a link of
 * its own, which the client may serve on another of its loops; there a reply read late because that
 * loop was busy can count as a timeout, and the check is only as good as a timer.
 *
 * <p>The answer (or the failure) is handed back on the event loop the call came from, so the request
 * carries on where it started instead of on Redis's I/O thread; a call from any other thread is
 * answered on the I/O loop.
 *
 * <p>A {@link CallGate} (the circuit breaker) is asked before each call is written, and told how
 * it went: Redis is judged by its calls, however many requests each one carries.
 * Gate and observer belong to one instance: background calls (heartbeats, the start-up warm-up)
 * run on instances of their own without them, so they never open the requests' breaker nor show
 * in the requests' latency metric.
 *
 * <p>The deadline is judged on a {@link MonotonicClock}: the I/O loop's timer only says when to look.
 * On the production clock ({@link MonotonicClock#system()}, the one Netty's timers run on) the
 * timer never fires early, so the first look always finds the deadline passed; a test's manual clock
 * decides alone when a call is late. The clock is read twice a call through a final field; in
 * production its one implementation is {@code System::nanoTime}, a call the JIT inlines.
 *
 * <p>{@code EVALSHA} first; on {@code NOSCRIPT} (a restarted or new node, {@code SCRIPT FLUSH}) the
 * same call is made once more by {@code EVAL}, which caches the script again, within the same
 * deadline.
 */
public final class ScriptCalls {

    private static final RedisUnavailableException NOT_CONNECTED =
            new RedisUnavailableException("no connection to Redis yet");

    private final RedisLink link;
    private final MonotonicClock clock;
    private final long deadlineNanos;
    private final String deadlineText;
    private static final CallRefusedException REFUSED =
            new CallRefusedException("the circuit breaker lets no call through to Redis now");

    private volatile CallObserver observer = CallObserver.NONE;
    private volatile CallGate gate = CallGate.ALWAYS_OPEN;

    /**
     * @param deadline how long Redis has to answer a call, from the moment it is written
     * @param clock    what the deadline and each call's time are measured on
     */
    public ScriptCalls(RedisLink link, Duration deadline, MonotonicClock clock) {
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline must be positive, was " + deadline);
        }
        this.link = link;
        this.clock = clock;
        this.deadlineNanos = deadline.toNanos();
        this.deadlineText = "no reply from Redis within " + deadline.toMillis() + " ms of writing the call";
    }

    /** Calls on an open connection, with a deadline too long to matter (tests, tools, benchmarks). */
    public static ScriptCalls on(io.lettuce.core.api.StatefulConnection<String, String> connection) {
        return new ScriptCalls(RedisLink.of(connection), Duration.ofSeconds(10), MonotonicClock.system());
    }

    /** Who is told each call's outcome; set once, before calls are made. */
    public void observe(CallObserver observer) {
        this.observer = observer;
    }

    /**
     * Who decides whether a call may be made (a circuit breaker), and hears how each call went; set
     * once, before calls are made. A call it refuses fails with {@link CallRefusedException} without
     * reaching Redis.
     */
    public void guard(CallGate gate) {
        this.gate = gate;
    }

    public boolean isCluster() {
        return link.isCluster();
    }

    /**
     * Runs {@code script} on {@code keys} with integer {@code args}; completes with its integer
     * reply(ies), or exceptionally: {@link ReplyTimeoutException} past the deadline,
     * {@link RedisUnavailableException} while there is no connection, Lettuce's error otherwise.
     * Over a cluster, all keys must hash to one slot.
     */
    public CompletableFuture<long[]> call(LuaScript script, String[] keys, long[] args) {
        return start(script, keys, args, null);
    }

    /**
     * Runs {@code script} on {@code keys} with text {@code args} (an instance id, say), as
     * {@link #call(LuaScript, String[], long[])} does.
     */
    public CompletableFuture<long[]> call(LuaScript script, String[] keys, String... args) {
        byte[][] raw = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            raw[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return start(script, keys, null, raw);
    }

    /**
     * Runs {@code script} on {@code keys} with binary {@code args}, sent byte for byte (packed
     * parameters, say), as {@link #call(LuaScript, String[], long[])} does.
     */
    public CompletableFuture<long[]> call(LuaScript script, String[] keys, byte[][] args) {
        return start(script, keys, null, args);
    }

    /**
     * The failure a stage completed with: the cause of a {@link CompletionException} (what a
     * dependent stage sees) rather than the wrapper itself.
     */
    public static Throwable failureOf(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private CompletableFuture<long[]> start(LuaScript script, String[] keys, long[] args, byte[][] rawArgs) {
        RedisLane lane = link.laneOrNull();
        if (lane == null) {
            // Redis cannot be asked at all: a failure of Redis's for the breaker too, so that it opens
            // and later probes, as for a Redis that went away.
            if (!gate.permit()) {
                return CompletableFuture.failedFuture(REFUSED);
            }
            gate.failed(0, NOT_CONNECTED);
            return CompletableFuture.failedFuture(NOT_CONNECTED);
        }
        RedisClusterAsyncCommands<String, String> commands = lane.commands();
        EventExecutor io = lane.ioLoop();
        Call call = new Call(commands, io, ThreadExecutorMap.currentExecutor(), script, keys, args, rawArgs);
        if (io.inEventLoop()) {
            call.write();
        } else {
            io.execute(call::write);
        }
        return call.result;
    }

    /** One call. Everything but {@link #result}'s completion happens on the I/O loop. */
    private final class Call {

        private final RedisClusterAsyncCommands<String, String> commands;
        private final EventExecutor io;
        private final EventExecutor origin;
        private final LuaScript script;
        private final String[] keys;
        private final long[] args;
        private final byte[][] rawArgs;
        private final CompletableFuture<long[]> result = new CompletableFuture<>();
        private long writtenAt;
        private ScheduledFuture<?> deadline;
        private boolean done;
        private boolean retried;
        private boolean lookedAgain;

        Call(RedisClusterAsyncCommands<String, String> commands, EventExecutor io, EventExecutor origin,
             LuaScript script, String[] keys, long[] args, byte[][] rawArgs) {
            this.commands = commands;
            this.io = io;
            this.origin = origin;
            this.script = script;
            this.keys = keys;
            this.args = args;
            this.rawArgs = rawArgs;
        }

        void write() {
            if (!gate.permit()) {
                done = true;
                deliver(null, REFUSED);
                return;
            }
            writtenAt = clock.nanoTime();
            deadline = io.schedule(this::expire, deadlineNanos, TimeUnit.NANOSECONDS);
            dispatch(CommandType.EVALSHA, script.sha1());
        }

        private void dispatch(CommandType type, String scriptArgument) {
            CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8)
                    .add(scriptArgument).add(keys.length).addKeys(keys);
            if (args != null) {
                for (long arg : args) {
                    commandArgs.add(arg);
                }
            } else {
                for (byte[] arg : rawArgs) {
                    commandArgs.add(arg);
                }
            }
            try {
                commands.dispatch(type, new LongsOutput(), commandArgs).whenComplete(this::replied);
            } catch (RuntimeException e) {
                replied(null, e);
            }
        }

        private void replied(long[] reply, Throwable error) {
            if (done) {
                return; // past the deadline: the request was decided without this answer
            }
            Throwable cause = failureOf(error);
            if (cause instanceof RedisNoScriptException && !retried) {
                retried = true;
                dispatch(CommandType.EVAL, script.source());
                return;
            }
            done = true;
            deadline.cancel(false);
            long nanos = clock.nanoTime() - writtenAt;
            if (cause == null) {
                gate.succeeded(nanos);
                observer.replied(nanos);
            } else {
                gate.failed(nanos, cause);
                observer.failed(cause);
            }
            deliver(reply, cause);
        }

        private void expire() {
            if (done) {
                return;
            }
            if (!lookedAgain) {
                long left = deadlineNanos - (clock.nanoTime() - writtenAt);
                if (left > 0) {
                    // Only on a clock other than the timer's (a test's): the deadline is the clock's to say.
                    deadline = io.schedule(this::expire, left, TimeUnit.NANOSECONDS);
                    return;
                }
                // A task scheduled from a running task is due only at the loop's next turn, which
                // starts by reading the sockets: a reply that is already there completes the call first.
                lookedAgain = true;
                io.schedule(this::expire, 0, TimeUnit.NANOSECONDS);
                return;
            }
            done = true;
            ReplyTimeoutException timeout = new ReplyTimeoutException(deadlineText);
            gate.failed(clock.nanoTime() - writtenAt, timeout);
            observer.timedOut();
            deliver(null, timeout);
        }

        private void deliver(long[] reply, Throwable error) {
            if (origin == null || origin.inEventLoop()) {
                complete(reply, error);
                return;
            }
            try {
                origin.execute(() -> complete(reply, error));
            } catch (RuntimeException rejected) {
                complete(reply, error); // the caller's loop is shutting down: answer here
            }
        }

        private void complete(long[] reply, Throwable error) {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(reply);
            }
        }
    }
}
