package dev.tollgate.spring.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.netty.NettyPipeline;

class RequestGuardHandlerTest {

    private static EmbeddedChannel channel() {
        return channel(Duration.ofMinutes(1));
    }

    private static EmbeddedChannel channel(Duration bodyTimeout) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.pipeline().addLast(NettyPipeline.HttpCodec, new HttpServerCodec());
        RequestGuardHandler.install(channel.pipeline(), bodyTimeout, Duration.ofMinutes(1),
                new MalformedRequestLog(0, new ManualClock()), new ManualClock());
        return channel;
    }

    private static String written(EmbeddedChannel channel) {
        StringBuilder out = new StringBuilder();
        for (Object msg = channel.readOutbound(); msg != null; msg = channel.readOutbound()) {
            ByteBuf bytes = (ByteBuf) msg;
            out.append(bytes.toString(StandardCharsets.ISO_8859_1));
            bytes.release();
        }
        return out.toString();
    }

    private static ByteBuf bytes(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1);
    }

    @Test
    void anUnparseableHeadIsAnsweredWithProblemJsonAndTheConnectionClosed() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(bytes("GET /a b HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertThat((Object) channel.readInbound()).as("nothing passed on").isNull();
        String answer = written(channel);
        assertThat(answer).startsWith("HTTP/1.1 400 Bad Request\r\n").contains("application/problem+json",
                "connection: close", "urn:tollgate:problem:malformed-request");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aRefusalWhileAResponseIsInProgressWaitsForIt() {
        EmbeddedChannel channel = channel();
        // A good request, then (pipelined) one with a control character in its target.
        channel.writeInbound(bytes("GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /a\u0001 HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertThat((Object) channel.readInbound()).isInstanceOf(HttpRequest.class);
        assertThat((Object) channel.readInbound()).isInstanceOf(LastHttpContent.class);
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(written(channel)).as("nothing written into the first response").isEmpty();

        DefaultFullHttpResponse first = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                bytes("first"));
        first.headers().setInt("content-length", 5);
        channel.writeAndFlush(first);
        channel.runPendingTasks();

        String answers = written(channel);
        assertThat(answers).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(answers.substring(answers.indexOf("first") + 5)).startsWith("HTTP/1.1 400 Bad Request\r\n")
                .contains("urn:tollgate:problem:invalid-path");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aBadChunkFailsTheBodyInsteadOfEndingIt() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(bytes("POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"));
        assertThat((Object) channel.readInbound()).isInstanceOf(HttpRequest.class);
        io.netty.handler.codec.http.HttpContent hello = channel.readInbound();
        assertThat(hello.content().toString(StandardCharsets.ISO_8859_1)).isEqualTo("hello");
        hello.release();

        // Raised into the pipeline, where Reactor Netty fails the request's body stream with it.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> channel.writeInbound(bytes("zz\r\n")))
                .isInstanceOf(RequestBodyFailure.class);
        assertThat((Object) channel.readInbound()).as("no end of body passed on").isNull();
        assertThat(channel.attr(RequestBodyFailure.ATTRIBUTE).get().status().value()).isEqualTo(400);
        assertThat(channel.isOpen()).as("left open for the 400, which Spring writes").isTrue();
        channel.finishAndReleaseAll();
    }

    @Test
    void aBodyFailsWhenItHasPausedForTheIdleTimeoutOnTheClock() {
        ManualClock clock = new ManualClock();
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime(); // the loop's timers move with the clock, by hand
        channel.pipeline().addLast(NettyPipeline.HttpCodec, new HttpServerCodec());
        RequestGuardHandler.install(channel.pipeline(), Duration.ofMinutes(1), Duration.ofSeconds(10),
                new MalformedRequestLog(0, new ManualClock()), clock);
        channel.writeInbound(bytes("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc"));

        pass(channel, clock, Duration.ofSeconds(6));
        channel.writeInbound(bytes("de")); // the pause starts again
        pass(channel, clock, Duration.ofSeconds(10).minusMillis(1));
        assertThat(channel.attr(RequestBodyFailure.ATTRIBUTE).get()).as("failure after a pause of 9.999 s").isNull();

        pass(channel, clock, Duration.ofMillis(1));
        assertThat(channel.attr(RequestBodyFailure.ATTRIBUTE).get().status().value()).isEqualTo(408);
        org.assertj.core.api.Assertions.assertThatThrownBy(channel::checkException)
                .isInstanceOf(RequestBodyFailure.class);
        channel.finishAndReleaseAll();
    }

    private static void pass(EmbeddedChannel channel, ManualClock clock, Duration duration) {
        clock.advance(duration);
        channel.advanceTimeBy(duration.toNanos(), TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void aPipelinedRequestsBadChunkClosesTheConnectionAfterTheResponseBeforeIt() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(bytes("GET /first HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"));
        channel.checkException(); // nothing raised into the first request's stream
        DefaultFullHttpResponse first = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                bytes("first"));
        first.headers().setInt("content-length", 5);
        assertThat(channel.isOpen()).isTrue();
        channel.writeAndFlush(first);
        channel.runPendingTasks();
        assertThat(written(channel)).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(channel.isOpen()).isFalse();
        channel.finishAndReleaseAll();
    }

    @Test
    void aBodyThatTakesLongerThanTheBodyTimeoutFails() {
        EmbeddedChannel channel = channel(Duration.ofMinutes(1));
        channel.writeInbound(bytes("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc"));
        channel.advanceTimeBy(2, java.util.concurrent.TimeUnit.MINUTES);
        channel.runScheduledPendingTasks();
        org.assertj.core.api.Assertions.assertThatThrownBy(channel::checkException)
                .isInstanceOf(RequestBodyFailure.class);
        assertThat(channel.attr(RequestBodyFailure.ATTRIBUTE).get().status().value()).isEqualTo(408);
        channel.finishAndReleaseAll();
    }

    @Test
    void aZeroBodyTimeoutLeavesBodiesUntimed() {
        EmbeddedChannel channel = channel(Duration.ZERO);
        channel.writeInbound(bytes("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc"));
        channel.advanceTimeBy(2, java.util.concurrent.TimeUnit.HOURS);
        channel.runScheduledPendingTasks();
        channel.checkException();
        assertThat(channel.attr(RequestBodyFailure.ATTRIBUTE).get()).isNull();
        channel.writeInbound(bytes("defghij"));
        assertThat((Object) channel.readInbound()).isInstanceOf(HttpRequest.class);
        io.netty.handler.codec.http.HttpContent first = channel.readInbound();
        first.release();
        io.netty.handler.codec.http.HttpContent last = channel.readInbound();
        assertThat(last).as("the body ends whole").isInstanceOf(LastHttpContent.class);
        last.release();
        assertThat(channel.isOpen()).isTrue();
        channel.finishAndReleaseAll();
    }

    @Test
    void theHostChecksAreMadeOnTheConnection() {
        for (String head : new String[] {"GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
                "GET /a HTTP/1.1\r\n\r\n", "GET /a HTTP/1.1\r\nHost: a:b:c\r\n\r\n",
                "GET /a HTTP/1.1\r\nHost: a:99999999999\r\n\r\n"}) {
            EmbeddedChannel channel = channel();
            channel.writeInbound(bytes(head));
            assertThat((Object) channel.readInbound()).as(head).isNull();
            assertThat(written(channel)).as(head).startsWith("HTTP/1.1 400 Bad Request\r\n")
                    .contains("urn:tollgate:problem:invalid-host");
            assertThat(channel.isOpen()).isFalse();
        }
        EmbeddedChannel old = channel();
        old.writeInbound(bytes("GET /a HTTP/1.0\r\n\r\n"));
        assertThat((Object) old.readInbound()).as("HTTP/1.0 may omit Host").isInstanceOf(HttpRequest.class);
        old.finishAndReleaseAll();
    }

    @Test
    void hostsReactorNettyCannotReadAreFound() {
        assertThat(RequestGuardHandler.hasReadablePort("example.org")).isTrue();
        assertThat(RequestGuardHandler.hasReadablePort("example.org:8080")).isTrue();
        assertThat(RequestGuardHandler.hasReadablePort("[::1]")).isTrue();
        assertThat(RequestGuardHandler.hasReadablePort("[::1]:80")).isTrue();
        assertThat(RequestGuardHandler.hasReadablePort("example.org:")).isFalse();
        assertThat(RequestGuardHandler.hasReadablePort("[::1]:")).isFalse();
        assertThat(RequestGuardHandler.hasReadablePort("a:99999999999")).isFalse();
    }

    @Test
    void targetsSpringCannotParseAreFound() {
        assertThat(RequestGuardHandler.hasUnparseableCharacter("/catalog/caf%C3%A9?q=a+b&x=%25")).isFalse();
        assertThat(RequestGuardHandler.hasUnparseableCharacter("/a\u0000")).isTrue();
        assertThat(RequestGuardHandler.hasUnparseableCharacter("/a?\u007f")).isTrue();
        assertThat(RequestGuardHandler.hasUnparseableCharacter("/a\\b")).isTrue();
    }
}
