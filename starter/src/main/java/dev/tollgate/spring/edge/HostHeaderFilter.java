package dev.tollgate.spring.edge;

import dev.tollgate.spring.filter.ProblemResponses;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import io.netty.handler.codec.http.HttpVersion;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Answers 400 problem+json ({@code urn:tollgate:problem:invalid-host}) to a request with more than one
 * {@code Host} header, and to an HTTP/1.1 request with none, as RFC 9112 §3.2 requires: which host
 * such a request is for is ambiguous, and a gateway and a backend could each pick a different one.
 * HTTP/1.0 requests may omit it (they predate it); HTTP/2 carries the authority elsewhere.
 */
public final class HostHeaderFilter implements WebFilter, Ordered {

    /** Just before {@link PathNormalizingFilter}: the first question about a request is which host it is for. */
    public static final int ORDER = PathNormalizingFilter.ORDER - 1;

    static final String TYPE = "invalid-host";

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        List<String> hosts = request.getHeaders().get(HttpHeaders.HOST);
        int count = hosts == null ? 0 : hosts.size();
        if (count == 1 || (count == 0 && !isHttp11(request))) {
            return chain.filter(exchange);
        }
        return ProblemResponses.write(exchange.getResponse(), ProblemResponses.problem(HttpStatus.BAD_REQUEST, TYPE,
                count == 0 ? "An HTTP/1.1 request needs a Host header." : "A request has one Host header, not " + count
                        + "."));
    }

    /** Whether the request came as HTTP/1.1; true when the server does not say (Reactor Netty does). */
    private static boolean isHttp11(ServerHttpRequest request) {
        Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(request);
        return !(nativeRequest instanceof HttpServerRequest netty) || HttpVersion.HTTP_1_1.equals(netty.version());
    }
}
