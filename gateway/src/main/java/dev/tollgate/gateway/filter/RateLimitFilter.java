package dev.tollgate.gateway.filter;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.Decision;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleBook;
import dev.tollgate.gateway.directory.Directory;
import dev.tollgate.gateway.directory.DirectoryUnavailableException;
import dev.tollgate.gateway.limiter.DecisionMetrics;
import dev.tollgate.gateway.limiter.DecisionOutcome;
import dev.tollgate.gateway.limiter.FailoverRateLimiter;
import dev.tollgate.gateway.limiter.SourcedDecision;
import dev.tollgate.gateway.tenant.TenantResolver;
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
 * Redis call (or from the local fallback, see {@link FailoverRateLimiter}). Admitted requests go on with {@code X-RateLimit-Remaining}; the others
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
    private final RuleBook rules;
    private final FailoverRateLimiter limiter;
    private final DecisionMetrics metrics;
    private final RateLimitHeaders headers;
    private final RejectionLog rejections;

    public RateLimitFilter(String apiKeyHeader, TenantResolver tenants, RuleBook rules, FailoverRateLimiter limiter,
                           DecisionMetrics metrics, RateLimitHeaders headers, RejectionLog rejections) {
        this.apiKeyHeader = apiKeyHeader;
        this.tenants = tenants;
        this.rules = rules;
        this.limiter = limiter;
        this.metrics = metrics;
        this.headers = headers;
        this.rejections = rejections;
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
        RateLimitRule rule = rules.ruleFor(tenant, routeId);
        return limiter.decide(new BucketKey(tenant, routeId), rule)
                .flatMap(sourced -> decide(exchange, chain, tenant, routeId, rule, sourced));
    }

    private Mono<Void> decide(ServerWebExchange exchange, GatewayFilterChain chain, String tenant, String routeId,
                              RateLimitRule rule, SourcedDecision sourced) {
        Decision decision = sourced.decision();
        if (rule.shadow()) {
            // A dry run: counted and logged, invisible to the client.
            DecisionOutcome outcome = decision.allowed() ? DecisionOutcome.ALLOWED : DecisionOutcome.SHADOW_REJECTED;
            metrics.decision(tenant, routeId, outcome, sourced.source());
            if (!decision.allowed()) {
                rejections.shadowRejected(tenant, routeId, sourced.source().tag());
            }
            return chain.filter(exchange);
        }
        metrics.decision(tenant, routeId, decision.allowed() ? DecisionOutcome.ALLOWED : DecisionOutcome.REJECTED,
                sourced.source());
        ServerHttpResponse response = exchange.getResponse();
        // Unverified requests share one bucket: its counters would tell about other clients' traffic.
        if (!Directory.UNVERIFIED_TENANT.equals(tenant)) {
            headers.write(response.getHeaders(), routeId, rule, decision);
        }
        if (decision.allowed()) {
            return chain.filter(exchange);
        }
        long retryAfter = decision.retryAfterSeconds();
        rejections.rejected(tenant, routeId, retryAfter, sourced.source().tag());
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
