package dev.tollgate.spring.edge;

import dev.tollgate.spring.problem.ProblemResponses;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Answers 400 problem+json ({@code urn:tollgate:problem:invalid-host}) to a request with more than one
 * {@code Host} header, to an HTTP/1.1 request with none, and to one whose {@code Host} is not
 * {@code host[:port]} as RFC 3986 writes them, as RFC 9112 §3.2 requires: which host such a request
 * is for is ambiguous, and a gateway and a backend could each read a different one. HTTP/1.0 requests
 * may omit it (they predate it); HTTP/2 carries the authority elsewhere.
 *
 * <p>On an HTTP/1.1 connection with Tollgate's {@link RequestGuardHandler} the guard has made this
 * very check (with the same answers) before Reactor Netty read the request, and the filter lets the
 * request pass without looking again. It still checks HTTP/2 requests, whose {@code Host} (from
 * {@code :authority}) no guard sees, and requests on a server that has no guard.
 */
public final class HostHeaderFilter implements WebFilter, Ordered {

    /** Just before {@link PathNormalizingFilter}: the first question about a request is which host it is for. */
    public static final int ORDER = PathNormalizingFilter.ORDER - 1;

    static final String TYPE = "invalid-host";
    static final String NOT_A_HOST = "The Host header is not a host name or address with an optional port.";

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        if (RequestGuardHandler.guarded(request)) {
            return chain.filter(exchange); // checked on the connection, before Reactor Netty read the request
        }
        List<String> hosts = request.getHeaders().get(HttpHeaders.HOST);
        String refusal = refusal(hosts == null ? Collections.emptyIterator() : hosts.iterator(), isHttp11(request));
        if (refusal == null) {
            return chain.filter(exchange);
        }
        return ProblemResponses.write(exchange.getResponse(),
                ProblemResponses.problem(HttpStatus.BAD_REQUEST, TYPE, refusal));
    }

    /**
     * Why a request with these {@code Host} values is refused (the problem's detail), or null if it is
     * not: one for an HTTP/1.1 request ({@code http11}), at most one otherwise, and that one valid.
     */
    static String refusal(Iterator<String> hosts, boolean http11) {
        if (!hosts.hasNext()) {
            return http11 ? "An HTTP/1.1 request needs a Host header." : null;
        }
        String host = hosts.next();
        if (!hosts.hasNext()) {
            return isValid(host) ? null : NOT_A_HOST;
        }
        int count = 1;
        while (hosts.hasNext()) {
            hosts.next();
            count++;
        }
        return "A request has one Host header, not " + count + ".";
    }

    /** Whether {@code host} is RFC 3986's {@code host [ ":" port ]} (empty allowed, as RFC 9112 does). */
    static boolean isValid(String host) {
        int end = host.length();
        int portStart = -1;
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            if (close < 0 || !all(host, 1, close, "0123456789abcdefABCDEF:.vV")) {
                return false;
            }
            if (close + 1 < end) {
                if (host.charAt(close + 1) != ':') {
                    return false;
                }
                portStart = close + 2;
            }
        } else {
            int colon = host.indexOf(':');
            if (colon >= 0) {
                portStart = colon + 1;
                end = colon;
            }
            if (!all(host, 0, end, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%!$&'()*+,;=")) {
                return false;
            }
        }
        return portStart < 0 || all(host, portStart, host.length(), "0123456789");
    }

    private static boolean all(String s, int from, int to, String allowed) {
        for (int i = from; i < to; i++) {
            if (allowed.indexOf(s.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether the request came as HTTP/1.1; true when the server does not say (Reactor Netty does). */
    private static boolean isHttp11(ServerHttpRequest request) {
        Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(request);
        return !(nativeRequest instanceof HttpServerRequest netty) || HttpVersion.HTTP_1_1.equals(netty.version());
    }
}
