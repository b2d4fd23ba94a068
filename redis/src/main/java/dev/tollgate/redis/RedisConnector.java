package dev.tollgate.redis;

import dev.tollgate.core.SerialScheduler;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the connections Tollgate's Redis calls share, without making Redis a condition for
 * starting: the first attempt is made at {@link #start()}, and failed attempts are repeated every
 * {@code retryDelay} in the background until they succeed. Once open, Lettuce reconnects each
 * connection by itself after any outage.
 *
 * <p>It opens {@code connections} of them: one per event loop of the client's (when the client
 * runs on the gateway's own HTTP loops, see {@link DedicatedRedisClient}, each loop gets a
 * connection of its own, and a request's call never leaves its loop). A connection can be used once
 * one PING has told which event loop serves it; calls from a loop that has no connection of its own
 * use any other (see {@link #laneOrNull()}).
 *
 * <p>A start may wait a bounded time for the first attempt to settle ({@link #awaitFirstOutcome}), so
 * that when Redis is there the first requests are decided by it rather than by the local fallback.
 *
 * <p>Retries run on a {@link SerialScheduler} handed in (a daemon thread in production, a manual one
 * in tests); the connector owns it from then on and closes it with itself.
 */
public final class RedisConnector implements RedisLink, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);

    private final Supplier<CompletionStage<? extends StatefulConnection<String, String>>> connect;
    private final int connections;
    private final Duration retryDelay;
    private final Function<RedisLink, CompletionStage<?>> onConnected;
    private final SerialScheduler retries;
    private final List<StatefulConnection<String, String>> open = new CopyOnWriteArrayList<>();
    private final List<RedisLane> lanes = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<EventExecutor, RedisLane> byLoop = new ConcurrentHashMap<>();
    private volatile boolean cluster;
    private volatile boolean closed;
    private volatile boolean failing;
    /** True once every connection has a lane and the post-connect step is done; false on a first failure. */
    private final CompletableFuture<Boolean> firstOutcome = new CompletableFuture<>();
    private final CompletableFuture<Void> postConnect = new CompletableFuture<>();
    private final AtomicBoolean postConnectStarted = new AtomicBoolean();

    /**
     * @param connect     opens a connection (e.g. {@code () -> client.connectAsync(codec, uri)})
     * @param connections how many to open (at least 1)
     * @param retryDelay  pause between failed attempts
     * @param onConnected run once, when the first connection is ready for calls, with this connector
     *                    (e.g. to load scripts ahead of use); the connector counts as ready once the
     *                    stage it returns completes
     * @param retries     where the retries run; closed with the connector
     */
    public RedisConnector(Supplier<CompletionStage<? extends StatefulConnection<String, String>>> connect,
                          int connections, Duration retryDelay,
                          Function<RedisLink, CompletionStage<?>> onConnected, SerialScheduler retries) {
        if (retryDelay.isNegative() || retryDelay.isZero()) {
            throw new IllegalArgumentException("retryDelay must be positive, was " + retryDelay);
        }
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be at least 1, was " + connections);
        }
        this.connect = connect;
        this.connections = connections;
        this.retryDelay = retryDelay;
        this.onConnected = onConnected;
        this.retries = retries;
    }

    /** One connection. */
    public RedisConnector(Supplier<CompletionStage<? extends StatefulConnection<String, String>>> connect,
                          Duration retryDelay, Function<RedisLink, CompletionStage<?>> onConnected,
                          SerialScheduler retries) {
        this(connect, 1, retryDelay, onConnected, retries);
    }

    /** Makes the first attempt; returns at once, whatever its outcome. */
    public void start() {
        attempt();
    }

    /**
     * Waits, at most {@code max}, until the first attempt has settled: every connection open with
     * its event loop known and the post-connect step done (true), or an attempt failed (false: Redis
     * refused or did not answer; retries go on in the background). Returns false when {@code max}
     * passes first.
     */
    public boolean awaitFirstOutcome(Duration max) {
        try {
            return firstOutcome.get(max.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return false;
        }
    }

    @Override
    public RedisLane laneOrNull() {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        RedisLane own = loop == null ? null : byLoop.get(loop);
        if (own != null) {
            return own;
        }
        return lanes.isEmpty() ? null : lanes.get(0);
    }

    @Override
    public boolean isCluster() {
        return cluster;
    }

    /** Whether a connection has been established and is currently open. */
    public boolean isConnected() {
        for (StatefulConnection<String, String> c : open) {
            if (c.isOpen()) {
                return true;
            }
        }
        return false;
    }

    /** Connections ready for calls (their event loop known). */
    public int lanes() {
        return lanes.size();
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
                boolean first = open.isEmpty();
                open.add(c);
                cluster = c instanceof StatefulRedisClusterConnection<?, ?>;
                learnIoLoop(c);
                if (failing || first) {
                    log.info("Connected to Redis");
                }
                failing = false;
                if (open.size() < connections) {
                    retries.execute(this::attempt);
                }
            }
        });
    }

    private void runPostConnect() {
        CompletionStage<?> step;
        try {
            step = onConnected.apply(this);
        } catch (RuntimeException e) {
            log.warn("Post-connect step failed; continuing", e);
            step = CompletableFuture.completedFuture(null);
        }
        step.whenComplete((ignored, error) -> {
            if (error != null) {
                log.warn("Post-connect step failed; continuing ({})", rootMessage(error));
            }
            postConnect.complete(null);
            settleIfReady();
        });
    }

    private void settleIfReady() {
        if (postConnect.isDone() && lanes.size() >= connections) {
            firstOutcome.complete(true);
        }
    }

    /**
     * Lettuce completes a command on the event loop that read its reply: one PING tells which loop
     * serves the connection. Repeated until it succeeds (Redis may go away right after connecting).
     */
    private void learnIoLoop(StatefulConnection<String, String> c) {
        RedisLink.ioLoopOf(c).whenComplete((loop, error) -> {
            if (error == null) {
                RedisLane lane = new RedisLane(RedisLink.asyncCommands(c), loop);
                lanes.add(lane);
                byLoop.putIfAbsent(loop, lane);
                if (postConnectStarted.compareAndSet(false, true)) {
                    // Once a call can be made: the post-connect step makes its calls through this connector.
                    runPostConnect();
                }
                settleIfReady();
            } else if (!closed) {
                retries.schedule(() -> learnIoLoop(c), retryDelay);
            }
        });
    }

    private void retryAfterFailure(Throwable error) {
        if (closed) {
            return;
        }
        if (!failing) {
            log.warn("Cannot connect to Redis ({}); retrying every {} ms; decisions use the local fallback meanwhile",
                    rootMessage(error), retryDelay.toMillis());
        }
        failing = true;
        firstOutcome.complete(false);
        retries.schedule(this::attempt, retryDelay);
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
        firstOutcome.complete(false);
        retries.close();
        lanes.clear();
        byLoop.clear();
        for (StatefulConnection<String, String> c : open) {
            c.close();
        }
        open.clear();
    }
}
