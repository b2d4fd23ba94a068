package dev.tollgate.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Redis connections Tollgate's calls share (standalone or cluster), each with the Netty event
 * loop that does its I/O. Calls are written on their connection's loop and their reply deadlines are
 * checked there too (see {@link ScriptCalls}): a loop reads what has arrived on its sockets before
 * it runs its timers, so a reply that came in time is never taken for a late one because this
 * gateway was busy. When a connection runs on the very event loop that serves the request (the
 * gateway's HTTP loops, see {@link DedicatedRedisClient}), a call is made without any thread hop.
 */
public interface RedisLink {

    /**
     * The connection calls made from the current thread should use: the one whose I/O runs on the
     * current event loop when there is one, else any; {@code null} while none is open.
     */
    RedisLane laneOrNull();

    /** Whether these are Redis Cluster connections (a script's keys must then share a slot). */
    boolean isCluster();

    /**
     * A link over a connection that is already open; blocks until one PING has told which event
     * loop serves it.
     */
    static RedisLink of(StatefulConnection<String, String> connection) {
        RedisClusterAsyncCommands<String, String> commands = asyncCommands(connection);
        EventExecutor loop;
        try {
            loop = ioLoopOf(connection).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisUnavailableException("interrupted while asking Redis which loop serves it");
        } catch (Exception e) {
            throw new RedisUnavailableException("Redis did not answer a PING: " + e);
        }
        RedisLane lane = new RedisLane(commands, loop);
        boolean cluster = connection instanceof StatefulRedisClusterConnection<?, ?>;
        return new RedisLink() {
            @Override
            public RedisLane laneOrNull() {
                return lane;
            }

            @Override
            public boolean isCluster() {
                return cluster;
            }
        };
    }

    /** The async API of a standalone or cluster connection, as their common type. */
    @SuppressWarnings("unchecked")
    static RedisClusterAsyncCommands<String, String> asyncCommands(StatefulConnection<String, String> connection) {
        if (connection instanceof StatefulRedisClusterConnection<?, ?> cluster) {
            return ((StatefulRedisClusterConnection<String, String>) cluster).async();
        }
        return ((StatefulRedisConnection<String, String>) connection).async();
    }

    /**
     * The event loop a connection's replies are read on. Lettuce completes a command where it decodes
     * the reply, so a PING whose completion is listened to before it is sent tells which loop that is.
     */
    static CompletableFuture<EventExecutor> ioLoopOf(StatefulConnection<String, String> connection) {
        CompletableFuture<EventExecutor> loop = new CompletableFuture<>();
        AsyncCommand<String, String, String> ping =
                new AsyncCommand<>(new Command<>(CommandType.PING, new StatusOutput<>(StringCodec.UTF8)));
        ping.whenComplete((pong, error) -> {
            EventExecutor executor = ThreadExecutorMap.currentExecutor();
            if (error != null) {
                loop.completeExceptionally(error);
            } else if (executor == null) {
                loop.completeExceptionally(new IllegalStateException("the PING's reply was not read on a Netty event loop"));
            } else {
                loop.complete(executor);
            }
        });
        try {
            connection.dispatch(ping);
        } catch (RuntimeException e) {
            loop.completeExceptionally(e);
        }
        return loop;
    }
}
