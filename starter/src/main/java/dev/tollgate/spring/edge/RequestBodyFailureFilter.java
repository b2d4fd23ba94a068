package dev.tollgate.spring.edge;

import dev.tollgate.spring.problem.ProblemResponses;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;

/**
 * Answers a request whose body failed ({@link RequestBodyFailure}: it could not be parsed, or took too
 * long) with its problem+json, 400 {@code urn:tollgate:problem:malformed-request} or 408
 * {@code urn:tollgate:problem:request-body-timeout}, and {@code Connection: close}. Whatever was
 * reading the body (the forwarded request, cut short) fails with it; without this the failure would end
 * as a 500 and an error logged with its stack trace for every such request. A response already begun
 * cannot be replaced: the connection is then closed by {@link RequestGuardHandler}.
 */
public final class RequestBodyFailureFilter implements WebFilter, Ordered {

    /** Outermost of the edge's filters, so that it sees the failure of anything after it. */
    public static final int ORDER = HostHeaderFilter.ORDER - 1;

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return chain.filter(exchange).onErrorResume(error -> {
            RequestBodyFailure failure = failureOf(exchange, error);
            if (failure == null) {
                return Mono.error(error);
            }
            ServerHttpResponse response = exchange.getResponse();
            if (response.isCommitted()) {
                return Mono.empty();
            }
            response.getHeaders().clear(); // rate-limit headers of an answer that will not be given
            response.getHeaders().set(HttpHeaders.CONNECTION, "close");
            return ProblemResponses.write(response,
                    ProblemResponses.problem(failure.status(), failure.type(), failure.getMessage()));
        });
    }

    /** The body failure behind {@code error}, or null if it has nothing to do with one. */
    static RequestBodyFailure failureOf(ServerWebExchange exchange, Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RequestBodyFailure failure) {
                return failure;
            }
        }
        // The reader may have failed with an error of its own (the backend connection it closed).
        Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
        return nativeRequest instanceof Connection connection
                ? connection.channel().attr(RequestBodyFailure.ATTRIBUTE).get() : null;
    }
}
