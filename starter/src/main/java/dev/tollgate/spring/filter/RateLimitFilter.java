package dev.tollgate.spring.filter;

import dev.tollgate.core.Decision;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.DirectoryUnavailableException;
import dev.tollgate.spring.tenant.TenantResolver;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Limits every routed request: the tenant comes from the API key header, the route from the route
 * Spring Cloud Gateway matched, the rule from the in-memory rule book, and the decision from one
 * Redis call (or from the local fallback; see {@link LimitEnforcer}). Admitted requests go on with {@code X-RateLimit-Remaining}; the others
 * end here with 429, {@code Retry-After} and a problem+json body, and never reach the backend.
 *
 * <p>Global filters run only once a route has matched, so the route is known here.
 */
public final class RateLimitFilter implements GlobalFilter, Ordered {

    /** Runs before the routing filters, which carry the request to the backend. */
    public static final int ORDER = -100;

    /** Route id used if no route is attached to the exchange (not expected for routed requests). */
    static final String UNKNOWN_ROUTE = "default";

    static final String TYPE_RATE_LIMITED = "urn:tollgate:problem:rate-limited";
    static final String TYPE_MISSING_KEY = "urn:tollgate:problem:missing-api-key";
    static final String TYPE_UNKNOWN_KEY = "urn:tollgate:problem:unknown-api-key";
    static final String TYPE_DIRECTORY_UNAVAILABLE = "urn:tollgate:problem:directory-unavailable";

    private final String apiKeyHeader;
    private final TenantResolver tenants;
    private final LimitEnforcer enforcer;
    private final RateLimitHeaders headers;

    public RateLimitFilter(String apiKeyHeader, TenantResolver tenants, LimitEnforcer enforcer,
                           RateLimitHeaders headers) {
        this.apiKeyHeader = apiKeyHeader;
        this.tenants = tenants;
        this.enforcer = enforcer;
        this.headers = headers;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        String apiKey = exchange.getRequest().getHeaders().getFirst(apiKeyHeader);
        if (apiKey == null || apiKey.isBlank()) {
            return unauthorized(exchange.getResponse(), TYPE_MISSING_KEY,
                    "The " + apiKeyHeader + " header is required.");
        }
        String tenant;
        try {
            tenant = tenants.tenantFor(apiKey);
        } catch (DirectoryUnavailableException e) {
            exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, "5");
            return ProblemResponses.write(exchange.getResponse(), HttpStatus.SERVICE_UNAVAILABLE,
                    TYPE_DIRECTORY_UNAVAILABLE, "API keys cannot be checked yet; retry shortly.", "");
        }
        if (tenant == null) {
            return unauthorized(exchange.getResponse(), TYPE_UNKNOWN_KEY,
                    "The API key in " + apiKeyHeader + " is not valid.");
        }
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        String routeId = route != null ? route.getId() : UNKNOWN_ROUTE;
        return enforcer.enforce(tenant, routeId).flatMap(verdict -> respond(exchange, chain, tenant, routeId, verdict));
    }

    private Mono<Void> respond(ServerWebExchange exchange, GatewayFilterChain chain, String tenant, String routeId,
                               LimitEnforcer.Verdict verdict) {
        if (verdict.rule().shadow()) {
            return chain.filter(exchange); // a dry run: invisible to the client
        }
        Decision decision = verdict.decision();
        ServerHttpResponse response = exchange.getResponse();
        // Unverified requests share one bucket: its counters would tell about other clients' traffic.
        if (!Directory.UNVERIFIED_TENANT.equals(tenant)) {
            headers.write(response.getHeaders()::set, routeId, verdict.rule(), decision);
        }
        if (verdict.admitted()) {
            return chain.filter(exchange);
        }
        long retryAfter = decision.retryAfterSeconds();
        if (retryAfter == Decision.NEVER) {
            return ProblemResponses.write(response, HttpStatus.TOO_MANY_REQUESTS, TYPE_RATE_LIMITED,
                    "This request costs more than the rate limit of route '" + routeId
                            + "' can ever allow.", "");
        }
        response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter));
        return ProblemResponses.write(response, HttpStatus.TOO_MANY_REQUESTS, TYPE_RATE_LIMITED,
                "Rate limit of route '" + routeId + "' exceeded; retry in " + retryAfter + " s.",
                "\"retryAfterSeconds\":" + retryAfter);
    }

    private Mono<Void> unauthorized(ServerHttpResponse response, String type, String detail) {
        response.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "ApiKey header=\"" + apiKeyHeader + "\"");
        return ProblemResponses.write(response, HttpStatus.UNAUTHORIZED, type, detail, "");
    }
}
