package dev.tollgate.spring.edge;

import dev.tollgate.spring.problem.ProblemResponses;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Gives every request its {@link RequestPath canonical path} before anything reads it: the request
 * goes on with that path, so Spring Cloud Gateway's route matching (which runs later, inside the
 * dispatcher), the rule looked up for the route, and the URL forwarded to the backend all see the
 * same one. A path that cannot be given one safe meaning is answered 400 problem+json
 * ({@code urn:tollgate:problem:invalid-path}) and goes nowhere. The query string is left alone.
 *
 * <p>Runs early among web filters: after Spring Boot's observation filter (so refusals are counted
 * in {@code http.server.requests}), before Spring Security's filter chain and anything else that
 * reads the path.
 */
public final class PathNormalizingFilter implements WebFilter, Ordered {

    /** Before Spring Security's web filter chain (-100), after the observation filter. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    static final String TYPE = "invalid-path";

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        RequestPath.Outcome outcome = RequestPath.canonical(request.getURI().getRawPath());
        if (outcome instanceof RequestPath.Canonical canonical) {
            if (!canonical.changed()) {
                return chain.filter(exchange);
            }
            return chain.filter(exchange.mutate().request(r -> r.path(canonical.path())).build());
        }
        String reason = ((RequestPath.Refused) outcome).reason();
        return ProblemResponses.write(exchange.getResponse(), ProblemResponses.problem(HttpStatus.BAD_REQUEST, TYPE,
                "The request path " + reason + "; it is refused rather than read one way here and another"
                        + " way by the backend."));
    }
}
