package dev.tollgate.redis;

import dev.tollgate.core.DaemonThreads;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the one connection Tollgate's Redis calls share, without making Redis a condition for
 * starting: the first attempt is made at {@link #start()}, and failed attempts are repeated every
 * {@code retryDelay} in the background until one succeeds. Once open, Lettuce reconnects the
 * connection by itself after any outage. Calls can be made once the connection is open and one PING
 * has told which event loop serves it ({@link #ioLoopOrNull()}).
 */
public final class RedisConnector implements RedisLink, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);

    private final Supplier<CompletionStage<? extends StatefulConnection<String, String>>> connect;
    private final Duration retryDelay;
    private final Consumer<RedisClusterAsyncCommands<String, String>> onConnected;
    private final ScheduledExecutorService retries;
    private final AtomicReference<StatefulConnection<String, String>> connection = new AtomicReference<>();
    private final AtomicReference<RedisClusterAsyncCommands<String, String>> commands = new AtomicReference<>();
    private volatile EventExecutor ioLoop;
    private volatile boolean cluster;
    private volatile boolean closed;

    /**
     * @param connect     opens a connection (e.g. {@code () -> client.connectAsync(codec, uri)})
     * @param retryDelay  pause between failed attempts
     * @param onConnected run once the connection is open (e.g. to load scripts ahead of use)
     */
    public RedisConnector(Supplier<CompletionStage<? extends StatefulConnection<String, String>>> connect,
                          Duration retryDelay,
                          Consumer<RedisClusterAsyncCommands<String, String>> onConnected) {
        if (retryDelay.isNegative() || retryDelay.isZero()) {
            throw new IllegalArgumentException("retryDelay must be positive, was " + retryDelay);
        }
        this.connect = connect;
        this.retryDelay = retryDelay;
        this.onConnected = onConnected;
        this.retries = DaemonThreads.scheduler("tollgate-redis-connector");
    }

    /** Makes the first attempt; returns at once, whatever its outcome. */
    public void start() {
        attempt();
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commandsOrNull() {
        return ioLoop == null ? null : commands.get();
    }

    @Override
    public EventExecutor ioLoopOrNull() {
        return ioLoop;
    }

    @Override
    public boolean isCluster() {
        return cluster;
    }

    /** Whether a connection has been established and is currently open. */
    public boolean isConnected() {
        StatefulConnection<String, String> c = connection.get();
        return c != null && c.isOpen();
    }

    private void attempt() {
        if (closed) {
            return;
        }
        CompletionStage<? extends StatefulConnection<String, String>> pending;
        try {
            pending = connect.get();
        } catch (RuntimeException e) {
            retryAfterFailure(e);
            return;
        }
        pending.whenComplete((c, error) -> {
            if (error != null) {
                retryAfterFailure(error);
            } else if (closed) {
                c.closeAsync();
            } else {
                connection.set(c);
                cluster = c instanceof StatefulRedisClusterConnection<?, ?>;
                RedisClusterAsyncCommands<String, String> async = RedisLink.asyncCommands(c);
                commands.set(async);
                learnIoLoop(c);
                log.info("Connected to Redis");
                try {
                    onConnected.accept(async);
                } catch (RuntimeException e) {
                    log.warn("Post-connect step failed; continuing", e);
                }
            }
        });
    }

    /**
     * Lettuce completes a command on the event loop that read its reply: one PING tells which loop
     * serves the connection. Repeated until it succeeds (Redis may go away right after connecting).
     */
    private void learnIoLoop(StatefulConnection<String, String> c) {
        RedisLink.ioLoopOf(c).whenComplete((loop, error) -> {
            if (error == null) {
                ioLoop = loop;
            } else if (!closed) {
                retries.schedule(() -> learnIoLoop(c), retryDelay.toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    private void retryAfterFailure(Throwable error) {
        if (closed) {
            return;
        }
        log.warn("Cannot connect to Redis ({}); retrying in {} ms; decisions use the local fallback meanwhile",
                rootMessage(error), retryDelay.toMillis());
        retries.schedule(this::attempt, retryDelay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static String rootMessage(Throwable error) {
        Throwable t = error;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    @Override
    public void close() {
        closed = true;
        retries.shutdownNow();
        StatefulConnection<String, String> c = connection.getAndSet(null);
        commands.set(null);
        if (c != null) {
            c.close();
        }
    }
}
