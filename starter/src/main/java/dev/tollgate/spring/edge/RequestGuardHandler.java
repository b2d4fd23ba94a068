package dev.tollgate.spring.edge;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.spring.problem.ProblemResponses;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.netty.Connection;
import reactor.netty.NettyPipeline;

/**
 * Guards an HTTP/1.1 connection between the HTTP codec and Reactor Netty, for what happens before a
 * request reaches Spring or after its head has:
 * <ul>
 *   <li>A request head the codec could not parse, a {@code Host} that {@link HostHeaderFilter} would
 *       refuse or Reactor Netty cannot read, or a control character or raw backslash in the request
 *       target (which Spring's server adapter refuses) is answered here with a problem+json 400 (414 or 431 for a head too large) and the
 *       connection closed, instead of the empty 400 Reactor Netty or Spring would give. Only answers
 *       that were already refusals change: nothing is refused here that would have been served.</li>
 *   <li>A request body that cannot be parsed (a bad chunk), that pauses longer than
 *       {@code bodyIdleTimeout}, or that has not fully arrived {@code bodyTimeout} after the request's
 *       head however steadily it trickles in, fails the request's body stream with a
 *       {@link RequestBodyFailure}. Reactor Netty, left alone, ends that stream normally when it gives
 *       up on a connection, so the forwarded request would be completed with part of a body; failing
 *       it makes the gateway cut the backend connection instead. {@link RequestBodyFailureFilter}
 *       answers the client; the connection is not reused. A zero {@code bodyTimeout} turns both time
 *       limits off (a bad chunk still fails the body: that request is broken either way).</li>
 * </ul>
 * Requests that cannot be parsed are logged through {@link MalformedRequestLog}, at a bounded rate.
 *
 * <p>A refusal that comes while an earlier request's response is still being written (pipelining)
 * waits for that response, so answers never interleave. A connection upgraded to HTTP/2 (h2c) drops
 * the handler.
 */
final class RequestGuardHandler extends ChannelDuplexHandler {

    static final String NAME = "tollgate.requestGuard";

    /** Set on a channel while the guard reads its requests: web filters then skip the checks made here. */
    private static final AttributeKey<Boolean> GUARDED = AttributeKey.valueOf(NAME);

    static final String MALFORMED_REQUEST = "malformed-request";
    static final String HEAD_TOO_LARGE = "request-head-too-large";
    static final String BODY_TIMEOUT = "request-body-timeout";

    /** Whether bodies are timed at all (a zero body timeout turns both body time limits off). */
    private final boolean timesBodies;
    private final long bodyTimeoutNanos;
    private final long bodyIdleNanos;
    private final String bodyTimeoutText;
    private final String bodyIdleText;
    private final MalformedRequestLog log;
    private final MonotonicClock clock;

    /** Requests passed on whose response has not been written in full. */
    private int inProgress;
    /** Whether the oldest such response has begun. */
    private boolean responseStarted;
    /** Whether the newest request passed on still has body to come. */
    private boolean bodyInProgress;
    private ScheduledFuture<?> bodyDeadline;
    private ScheduledFuture<?> bodyIdleCheck;
    private long lastBodyRead;
    /** Set once this connection is refused or its body failed: nothing more it sends is read. */
    private boolean closing;
    /** A refusal to write once the response in progress is written. */
    private ProblemDetail deferred;
    /** Whether to close once the response in progress is written (a pipelined request's body failed). */
    private boolean closeAfterResponse;

    /** @param clock what a body's pauses are measured on (the timers only say when to look) */
    RequestGuardHandler(Duration bodyTimeout, Duration bodyIdleTimeout, MalformedRequestLog log, MonotonicClock clock) {
        this.timesBodies = !bodyTimeout.isZero();
        this.bodyTimeoutNanos = bodyTimeout.toNanos();
        this.bodyIdleNanos = bodyIdleTimeout.toNanos();
        this.bodyTimeoutText = text(bodyTimeout);
        this.bodyIdleText = text(bodyIdleTimeout);
        this.log = log;
        this.clock = clock;
    }

    private static String text(Duration duration) {
        return duration.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }

    /** Adds the handler after the HTTP/1.1 codec of {@code pipeline}; false if there is none (HTTP/2). */
    static boolean install(ChannelPipeline pipeline, Duration bodyTimeout, Duration bodyIdleTimeout,
                           MalformedRequestLog log, MonotonicClock clock) {
        if (pipeline.get(NettyPipeline.HttpCodec) == null) {
            return false;
        }
        pipeline.addAfter(NettyPipeline.HttpCodec, NAME, new RequestGuardHandler(bodyTimeout, bodyIdleTimeout, log, clock));
        pipeline.channel().attr(GUARDED).set(Boolean.TRUE);
        return true;
    }

    /**
     * Whether {@code request} came through a guard, which has checked its {@code Host} headers already;
     * false for HTTP/2 streams (their own channels) and for servers without the guard.
     */
    static boolean guarded(ServerHttpRequest request) {
        Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(request);
        if (!(nativeRequest instanceof Connection connection)) {
            return false;
        }
        Channel channel = connection.channel();
        return channel.hasAttr(GUARDED) && Boolean.TRUE.equals(channel.attr(GUARDED).get());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            ProblemDetail refusal = refusal(ctx, request);
            if (refusal != null) {
                ReferenceCountUtil.release(msg);
                refuse(ctx, refusal);
                return;
            }
            inProgress++;
            bodyInProgress = !(msg instanceof LastHttpContent)
                    && (HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0);
            if (bodyInProgress && timesBodies) {
                lastBodyRead = clock.nanoTime();
                bodyDeadline = ctx.executor().schedule(() -> bodyTimedOut(ctx), bodyTimeoutNanos, TimeUnit.NANOSECONDS);
                bodyIdleCheck = ctx.executor().schedule(() -> bodyIdleCheck(ctx), bodyIdleNanos, TimeUnit.NANOSECONDS);
            }
            ctx.fireChannelRead(msg);
            return;
        }
        if (msg instanceof HttpContent content) {
            DecoderResult result = content.decoderResult();
            if (result.isFailure()) {
                log.malformed(ctx.channel().remoteAddress(), "body", result.cause());
                content.release();
                failBody(ctx, new RequestBodyFailure(HttpStatus.BAD_REQUEST, MALFORMED_REQUEST,
                        "The request body could not be parsed as HTTP/1.1; the request was not forwarded whole."));
                return;
            }
            lastBodyRead = clock.nanoTime();
            if (msg instanceof LastHttpContent) {
                bodyInProgress = false;
                cancelBodyDeadline();
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** Why the request with this head is refused here, or null to pass it on. */
    private ProblemDetail refusal(ChannelHandlerContext ctx, HttpRequest request) {
        DecoderResult result = request.decoderResult();
        if (result.isFailure()) {
            Throwable cause = result.cause();
            log.malformed(ctx.channel().remoteAddress(), "head", cause);
            if (cause instanceof TooLongHttpLineException) {
                return ProblemResponses.problem(HttpStatus.URI_TOO_LONG, HEAD_TOO_LARGE,
                        "The request line is longer than this server accepts.");
            }
            if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException) {
                return ProblemResponses.problem(HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, HEAD_TOO_LARGE,
                        "The request headers are larger than this server accepts.");
            }
            return ProblemResponses.problem(HttpStatus.BAD_REQUEST, MALFORMED_REQUEST,
                    "The request line or headers could not be parsed as HTTP/1.1 (a raw space, tab or control"
                            + " character in the request target, for one).");
        }
        // The whole Host check of HostHeaderFilter, which then skips this connection's requests: an
        // iterator over the values, not a list of them, and one pass.
        String hostRefusal = HostHeaderFilter.refusal(request.headers().valueStringIterator(HttpHeaderNames.HOST),
                HttpVersion.HTTP_1_1.equals(request.protocolVersion()));
        if (hostRefusal == null) {
            String host = request.headers().get(HttpHeaderNames.HOST);
            if (host != null && !hasReadablePort(host)) {
                hostRefusal = HostHeaderFilter.NOT_A_HOST;
            }
        }
        if (hostRefusal != null) {
            return ProblemResponses.problem(HttpStatus.BAD_REQUEST, HostHeaderFilter.TYPE, hostRefusal);
        }
        if (hasUnparseableCharacter(request.uri())) {
            return ProblemResponses.problem(HttpStatus.BAD_REQUEST, PathNormalizingFilter.TYPE,
                    "The request target holds a control character or a raw backslash; it is refused rather than"
                            + " read one way here and another way by the backend.");
        }
        return null;
    }

    /** Whether the port of a valid {@code host[:port]}, if any, is one Reactor Netty can read (an int). */
    static boolean hasReadablePort(String host) {
        int close = host.startsWith("[") ? host.indexOf(']') : -1;
        int colon = host.indexOf(':', Math.max(close, 0));
        if (host.startsWith("[") && colon != close + 1) {
            return true; // no port after the address
        }
        if (colon < 0) {
            return true;
        }
        String port = host.substring(colon + 1);
        return !port.isEmpty() && port.length() <= 9; // digits only (checked by isValid); 9 always fit an int
    }

    /**
     * Whether {@code target} holds a character that stops Spring's server adapter from building the
     * request's URI (it answers an empty 400 before any filter): a control character or a backslash.
     */
    static boolean hasUnparseableCharacter(String target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\\') {
                return true;
            }
        }
        return false;
    }

    private void refuse(ChannelHandlerContext ctx, ProblemDetail refusal) {
        closing = true;
        cancelBodyDeadline();
        if (inProgress > 0) {
            deferred = refusal; // written once the response in progress is
            return;
        }
        answer(ctx, refusal);
    }

    private static void answer(ChannelHandlerContext ctx, ProblemDetail problem) {
        byte[] body = ProblemResponses.serialize(problem);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(problem.getStatus()), Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "application/problem+json")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    private void bodyTimedOut(ChannelHandlerContext ctx) {
        bodyDeadline = null;
        if (bodyInProgress && !closing) {
            failBody(ctx, new RequestBodyFailure(HttpStatus.REQUEST_TIMEOUT, BODY_TIMEOUT,
                    "The request body did not arrive within " + bodyTimeoutText + " of the request's head;"
                            + " the request was not forwarded whole."));
        }
    }

    /** Fails the body if nothing of it came for the idle timeout, else checks again when it could be so. */
    private void bodyIdleCheck(ChannelHandlerContext ctx) {
        bodyIdleCheck = null;
        if (!bodyInProgress || closing) {
            return;
        }
        long idle = clock.nanoTime() - lastBodyRead;
        if (idle < bodyIdleNanos) {
            // Re-armed once per idle period, not on every read: a steady body costs one timer, not one a chunk.
            bodyIdleCheck = ctx.executor().schedule(() -> bodyIdleCheck(ctx), bodyIdleNanos - idle, TimeUnit.NANOSECONDS);
            return;
        }
        failBody(ctx, new RequestBodyFailure(HttpStatus.REQUEST_TIMEOUT, BODY_TIMEOUT,
                "The request body paused for longer than " + bodyIdleText + "; the request was not forwarded whole."));
    }

    /**
     * The body of the newest request will not arrive whole: its stream fails (so the forwarded request
     * is cut, never completed), and the connection is not read any further.
     */
    private void failBody(ChannelHandlerContext ctx, RequestBodyFailure failure) {
        closing = true;
        bodyInProgress = false;
        cancelBodyDeadline();
        if (inProgress == 0) {
            ctx.close(); // its response is written already: nothing waits for the body
            return;
        }
        if (inProgress > 1) {
            // A pipelined request, still queued by Reactor Netty behind an earlier one's response: once
            // that is written, closing cuts this one (its body fails as the connection goes).
            closeAfterResponse = true;
            return;
        }
        ctx.channel().attr(RequestBodyFailure.ATTRIBUTE).set(failure);
        ctx.fireExceptionCaught(failure); // Reactor Netty fails the request's body stream with it
        if (responseStarted) {
            ctx.close(); // a response has begun that can no longer be finished properly
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean interim = msg instanceof HttpResponse response
                && response.status().codeClass() == HttpStatusClass.INFORMATIONAL; // 100 Continue
        if (msg instanceof HttpResponse && !interim) {
            responseStarted = true;
        }
        if (msg instanceof LastHttpContent && !interim) {
            ChannelPromise written = promise.unvoid();
            written.addListener(done -> responseWritten(ctx));
            ctx.write(msg, written);
            return;
        }
        ctx.write(msg, promise);
    }

    private void responseWritten(ChannelHandlerContext ctx) {
        if (inProgress > 0) {
            inProgress--;
        }
        responseStarted = false;
        if (closeAfterResponse) {
            ctx.close();
            return;
        }
        if (inProgress == 0 && deferred != null) {
            ProblemDetail refusal = deferred;
            deferred = null;
            answer(ctx, refusal);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof HttpServerUpgradeHandler.UpgradeEvent) {
            ctx.pipeline().remove(this); // upgraded to HTTP/2 (h2c)
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelBodyDeadline();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelBodyDeadline();
        ctx.channel().attr(GUARDED).set(null);
    }

    private void cancelBodyDeadline() {
        if (bodyDeadline != null) {
            bodyDeadline.cancel(false);
            bodyDeadline = null;
        }
        if (bodyIdleCheck != null) {
            bodyIdleCheck.cancel(false);
            bodyIdleCheck = null;
        }
    }
}
