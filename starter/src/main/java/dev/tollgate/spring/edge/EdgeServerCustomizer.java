package dev.tollgate.spring.edge;

import java.time.Duration;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.http.server.HttpServer;

/**
 * Time limits on client connections, so that idle or slow clients cannot hold connections forever:
 * <ul>
 *   <li>{@code idleTimeout}: a connection on which no request is in progress and no byte arrives for
 *       this long is closed (Reactor Netty's idle timeout).</li>
 *   <li>{@code requestReadTimeout}: a request's head must arrive within this long of its first bytes
 *       ({@link RequestHeadTimeoutHandler}), and its body may pause no longer than this between reads
 *       (Reactor Netty's read timeout); otherwise the connection is closed.</li>
 * </ul>
 */
public final class EdgeServerCustomizer implements NettyServerCustomizer {

    private final Duration idleTimeout;
    private final Duration requestReadTimeout;

    public EdgeServerCustomizer(Duration idleTimeout, Duration requestReadTimeout) {
        this.idleTimeout = idleTimeout;
        this.requestReadTimeout = requestReadTimeout;
    }

    @Override
    public HttpServer apply(HttpServer server) {
        return server.idleTimeout(idleTimeout)
                .readTimeout(requestReadTimeout)
                .doOnChannelInit((observer, channel, remoteAddress) ->
                        RequestHeadTimeoutHandler.install(channel.pipeline(), requestReadTimeout));
    }
}
