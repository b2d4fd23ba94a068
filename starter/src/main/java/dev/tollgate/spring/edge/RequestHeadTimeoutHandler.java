package dev.tollgate.spring.edge;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import reactor.netty.NettyPipeline;

/**
 * Closes an HTTP/1.1 connection whose client takes longer than {@code timeout} to send a request's
 * head (request line and headers), counted from the first bytes of that head. An idle timeout alone
 * cannot do this: it is reset by every byte, so a client that sends its headers a byte at a time holds
 * the connection forever.
 *
 * <p>Sits right after the HTTP codec, so it sees each request head once decoded and each response's
 * end on its way out. The clock starts at the first read while no request is in progress and stops
 * when a head is decoded; between requests a keep-alive connection is governed by the idle timeout.
 * Bytes of a pipelined request read before the previous response was finished start no clock: they are
 * bounded by the idle timeout, which starts when that response is written. A connection upgraded to
 * HTTP/2 (h2c) drops the handler; HTTP/2 over TLS has no HTTP/1.1 codec and never gets it.
 */
final class RequestHeadTimeoutHandler extends ChannelDuplexHandler {

    static final String NAME = "tollgate.requestHeadTimeout";

    private final long timeoutNanos;
    private int inProgress;
    private ScheduledFuture<?> deadline;

    RequestHeadTimeoutHandler(Duration timeout) {
        this.timeoutNanos = timeout.toNanos();
    }

    /** Adds the handler after the HTTP/1.1 codec of {@code pipeline}; false if there is none (HTTP/2). */
    static boolean install(ChannelPipeline pipeline, Duration timeout) {
        if (pipeline.get(NettyPipeline.HttpCodec) == null) {
            return false;
        }
        pipeline.addAfter(NettyPipeline.HttpCodec, NAME, new RequestHeadTimeoutHandler(timeout));
        return true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            inProgress++;
            cancelDeadline();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // Bytes arrived and no decoded head explains them: a head is on its way.
        if (inProgress == 0 && deadline == null) {
            deadline = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent) {
            ChannelPromise written = promise.unvoid();
            written.addListener(done -> {
                if (inProgress > 0) {
                    inProgress--;
                }
            });
            ctx.write(msg, written);
            return;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof HttpServerUpgradeHandler.UpgradeEvent) {
            ctx.pipeline().remove(this); // upgraded to HTTP/2 (h2c): no more HTTP/1.1 heads to time
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelDeadline();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelDeadline();
    }

    private void expire(ChannelHandlerContext ctx) {
        deadline = null;
        if (inProgress == 0) {
            ctx.close();
        }
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
