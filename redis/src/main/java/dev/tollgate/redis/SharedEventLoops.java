package dev.tollgate.redis;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Event loops that someone else owns (the gateway's HTTP loops), lent to Lettuce: Lettuce runs its
 * connections on them and never shuts them down. A connection on the loop that serves a request
 * writes its call and reads its reply on that very thread: no hop to another thread and back.
 */
final class SharedEventLoops implements EventLoopGroupProvider {

    private final EventLoopGroup group;
    private final int loops;

    private SharedEventLoops(EventLoopGroup group) {
        this.group = group;
        int n = 0;
        for (EventExecutor ignored : group) {
            n++;
        }
        this.loops = n;
    }

    /**
     * The group, if Lettuce's socket channels can run on it (the same transport: both native epoll,
     * or both NIO), else {@code null}. Checked by registering one unconnected channel.
     */
    static SharedEventLoops ifCompatible(EventLoopGroup group) {
        Channel probe;
        try {
            probe = Transports.socketChannelClass().getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
        try {
            return group.next().register(probe).awaitUninterruptibly(5, TimeUnit.SECONDS)
                    && probe.isRegistered() ? new SharedEventLoops(group) : null;
        } catch (RuntimeException e) {
            return null;
        } finally {
            if (probe.isRegistered()) {
                probe.close();
            }
        }
    }

    /** How many loops the group has: Tollgate opens one connection for each. */
    int loops() {
        return loops;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends EventLoopGroup> T allocate(Class<T> type) {
        return (T) group;
    }

    @Override
    public int threadPoolSize() {
        return loops;
    }

    @Override
    public Future<Boolean> release(EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit unit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true); // not ours to shut down
    }

    @Override
    public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
    }
}
