package dev.tollgate.redis;

import dev.tollgate.core.DaemonThreads;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
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
 * connection by itself after any outage.
 */
public final class RedisConnector implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);

    private final Supplier<CompletionStage<? extends StatefulConnection<String, String>>> connect;
    private final Duration retryDelay;
    private final Consumer<RedisScriptingAsyncCommands<String, String>> onConnected;
    private final ScheduledExecutorService retries;
    private final AtomicReference<StatefulConnection<String, String>> connection = new AtomicReference<>();
    private final AtomicReference<RedisScriptingAsyncCommands<String, String>> commands = new AtomicReference<>();
    private volatile boolean closed;

    /**
     * @param connect     opens a connection (e.g. {@code () -> client.connectAsync(codec, uri)})
     * @param retryDelay  pause between failed attempts
     * @param onConnected run once the connection is open (e.g. to load scripts ahead of use)
     */
    public RedisConnector(Supplier<CompletionStage<? extends StatefulConnection<String, String>>> connect,
                          Duration retryDelay,
                          Consumer<RedisScriptingAsyncCommands<String, String>> onConnected) {
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

    /** The async commands of the open connection, or {@code null} while there is none. */
    public RedisScriptingAsyncCommands<String, String> commandsOrNull() {
        return commands.get();
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
                RedisScriptingAsyncCommands<String, String> async = asyncCommands(c);
                commands.set(async);
                log.info("Connected to Redis");
                try {
                    onConnected.accept(async);
                } catch (RuntimeException e) {
                    log.warn("Post-connect step failed; continuing", e);
                }
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

    @SuppressWarnings("unchecked")
    private static RedisScriptingAsyncCommands<String, String> asyncCommands(StatefulConnection<String, String> c) {
        if (c instanceof StatefulRedisClusterConnection<?, ?> cluster) {
            return ((StatefulRedisClusterConnection<String, String>) cluster).async();
        }
        return ((StatefulRedisConnection<String, String>) c).async();
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
