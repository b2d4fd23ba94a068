package dev.tollgate.spring.edge;

import dev.tollgate.core.MonotonicClock;
import java.time.Duration;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.http.server.HttpServer;

/**
 * Time limits on client connections, so that idle or slow clients cannot hold connections forever:
 * <ul>
 *   <li>{@code idleTimeout}: a connection on which no request is in progress and no byte arrives for
 *       this long is closed (Reactor Netty's idle timeout).</li>
 *   <li>{@code requestReadTimeout}: a request's head must arrive within this long of its first bytes
 *       ({@link RequestHeadTimeoutHandler}), and, where the body rules are on, its body may pause no
 *       longer than this between reads ({@link RequestGuardHandler}: the client gets a 408); otherwise
 *       the connection is closed.</li>
 *   <li>{@code requestBodyTimeout}: a request's body must arrive in full within this long of its head,
 *       however steadily it trickles in ({@link RequestGuardHandler}); otherwise it fails, the forwarded
 *       request is cut and the client gets a 408. Zero turns both body rules off: bodies then take as
 *       long, and pause as long, as the client likes.</li>
 * </ul>
 * The same {@link RequestGuardHandler} answers requests the HTTP codec cannot parse with problem+json.
 */
public final class EdgeServerCustomizer implements NettyServerCustomizer {

    private final Duration idleTimeout;
    private final Duration requestReadTimeout;
    private final Duration requestBodyTimeout;
    private final MalformedRequestLog malformedRequests;
    private final MonotonicClock clock;

    /** @param clock what request bodies' pauses are measured on */
    public EdgeServerCustomizer(Duration idleTimeout, Duration requestReadTimeout, Duration requestBodyTimeout,
                                MalformedRequestLog malformedRequests, MonotonicClock clock) {
        this.idleTimeout = idleTimeout;
        this.requestReadTimeout = requestReadTimeout;
        this.requestBodyTimeout = requestBodyTimeout;
        this.malformedRequests = malformedRequests;
        this.clock = clock;
    }

    @Override
    public HttpServer apply(HttpServer server) {
        // No Reactor Netty read timeout: RequestGuardHandler times body pauses itself, so that a paused
        // body fails the forwarded request and gets a 408 rather than a 500.
        return server.idleTimeout(idleTimeout)
                .doOnChannelInit((observer, channel, remoteAddress) -> {
                    RequestHeadTimeoutHandler.install(channel.pipeline(), requestReadTimeout);
                    RequestGuardHandler.install(channel.pipeline(), requestBodyTimeout, requestReadTimeout,
                            malformedRequests, clock);
                });
    }
}
