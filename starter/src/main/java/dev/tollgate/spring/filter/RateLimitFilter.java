package dev.tollgate.spring.filter;

import dev.tollgate.core.Decision;
import dev.tollgate.core.TokenBucketMath;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.spring.identity.AuthFailureLimiter;
import dev.tollgate.spring.identity.BearerTenants;
import dev.tollgate.spring.identity.ClientAddresses;
import dev.tollgate.spring.identity.IdentityPolicies;
import dev.tollgate.spring.limiter.LimitEnforcer;
import dev.tollgate.spring.problem.ProblemResponses;
import dev.tollgate.spring.settings.IdentityPolicy;
import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.spring.tenant.TenantResolver;
import java.util.List;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Limits every routed request: the tenant comes from the API key header (sent once: a request with two
 * is answered 400 {@code urn:tollgate:problem:repeated-api-key}), the route from the route
 * Spring Cloud Gateway matched, the limits from the in-memory limit book, and the decision from one
 * Redis call (or from the local fallback; see {@link LimitEnforcer}). Admitted requests go on with
 * {@code X-RateLimit-Remaining}; the others end here with 429, {@code Retry-After} and a
 * problem+json body (naming the limit that rejected, on the multi-limit path), and never reach the
 * backend.
 *
 * <p>Who the caller is depends on the route's {@link IdentityPolicy}: the tenant of its API key
 * ({@code api-key}, the default), that or an anonymous caller when it sends none ({@code optional}),
 * always an anonymous caller ({@code anonymous}), or nobody: the request is not limited ({@code none}).
 * An anonymous caller is limited as the tenant {@code anon:<address group>} ({@link ClientAddresses}),
 * which the limit book puts on the plan named {@code anonymous} if there is one; it is told the state of
 * its own group's limits in the headers, and the backend is told no tenant.
 *
 * <p>Failed authentication (every 401) is counted per client address group
 * ({@link AuthFailureLimiter}); an address past its budget is answered 429
 * {@code urn:tollgate:problem:authentication-failures} with {@code Retry-After} before its key is looked
 * up, on every route that would authenticate it.
 *
 * <p>Global filters run only once a route has matched, so the route is known here.
 */
public final class RateLimitFilter implements GlobalFilter, Ordered {

    /** Runs before the routing filters, which carry the request to the backend. */
    public static final int ORDER = -100;

    /**
     * Exchange attribute holding the tenant a request was admitted as, under a verified API key; read by
     * {@link TenantHeadersFilter} to tell the backend.
     */
    public static final String TENANT_ATTRIBUTE = RateLimitFilter.class.getName() + ".tenant";

    /** Problem type of a request with more than one API key header. */
    static final String REPEATED_API_KEY = "repeated-api-key";

    /** Problem type of a request from an address past its budget of failed authentications. */
    static final String AUTHENTICATION_FAILURES = "authentication-failures";

    /** Route id used if no route is attached to the exchange (not expected for routed requests). */
    static final String UNKNOWN_ROUTE = "default";

    private final String apiKeyHeader;
    private final TenantResolver tenants;
    private final LimitEnforcer enforcer;
    private final RateLimitHeaders headers;
    private final byte[] missingKeyBody;
    private final byte[] repeatedKeyBody;
    private final byte[] unknownKeyBody;
    private final byte[] directoryUnavailableBody;
    private final RejectionBodies rejectionBodies = new RejectionBodies();
    private final IdentityPolicies policies;
    private final ClientAddresses addresses;
    private final AuthFailureLimiter authFailures;
    private final BearerTenants bearerTenants;

    /**
     * @param authFailures  counts failed authentication per address, or null to leave it unlimited
     * @param bearerTenants verifies bearer tokens (tollgate.jwt.*), or null where tokens are not read
     */
    public RateLimitFilter(String apiKeyHeader, TenantResolver tenants, LimitEnforcer enforcer,
                           RateLimitHeaders headers, IdentityPolicies policies, ClientAddresses addresses,
                           AuthFailureLimiter authFailures, BearerTenants bearerTenants) {
        this.apiKeyHeader = apiKeyHeader;
        this.tenants = tenants;
        this.enforcer = enforcer;
        this.headers = headers;
        this.policies = policies;
        this.addresses = addresses;
        this.authFailures = authFailures;
        this.bearerTenants = bearerTenants;
        this.missingKeyBody = ProblemResponses.serialize(ProblemResponses.problem(HttpStatus.UNAUTHORIZED,
                "missing-api-key", "The " + apiKeyHeader + " header is required."));
        this.repeatedKeyBody = ProblemResponses.serialize(ProblemResponses.problem(HttpStatus.BAD_REQUEST,
                REPEATED_API_KEY, "The " + apiKeyHeader + " header must be sent once, not more."));
        this.unknownKeyBody = ProblemResponses.serialize(ProblemResponses.problem(HttpStatus.UNAUTHORIZED,
                "unknown-api-key", "The API key in " + apiKeyHeader + " is not valid."));
        this.directoryUnavailableBody = ProblemResponses.serialize(ProblemResponses.problem(
                HttpStatus.SERVICE_UNAVAILABLE, "directory-unavailable", "API keys cannot be checked yet; retry shortly."));
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        String routeId = route != null ? route.getId() : UNKNOWN_ROUTE;
        IdentityPolicy policy = policies.of(routeId);
        if (policy == IdentityPolicy.NONE) {
            return chain.filter(exchange);
        }
        if (policy == IdentityPolicy.ANONYMOUS) {
            return anonymous(exchange, chain, routeId);
        }
        List<String> apiKeys = exchange.getRequest().getHeaders().get(apiKeyHeader);
        if (apiKeys != null && apiKeys.size() > 1) {
            // Which one counts would be a guess, and a proxy or backend may guess otherwise.
            return ProblemResponses.write(exchange.getResponse(), HttpStatus.BAD_REQUEST, repeatedKeyBody);
        }
        String apiKey = apiKeys == null ? null : apiKeys.get(0);
        boolean missing = apiKey == null || apiKey.isBlank();
        // The API key wins over a bearer token: the Authorization header may be meant for the backend.
        String token = missing && bearerTenants != null ? bearerToken(exchange.getRequest().getHeaders()) : null;
        if (missing && token == null && policy == IdentityPolicy.OPTIONAL) {
            return anonymous(exchange, chain, routeId);
        }
        // The address is worked out only while some address has failed (most of the time none has).
        String group = authFailures == null || authFailures.tracked() == 0 ? null : addresses.group(exchange.getRequest());
        if (group != null) {
            long blockedFor = authFailures.blockedForMillis(group);
            if (blockedFor > 0) {
                return tooManyFailures(exchange.getResponse(), TokenBucketMath.ceilDiv(blockedFor, 1000));
            }
        }
        if (token != null) {
            return bearerTenants.tenantOf(token).flatMap(result -> result instanceof BearerTenants.Tenant tenant
                    ? enforce(exchange, chain, routeId, tenant.tenant(), true, tenant.tenant())
                    : invalidToken(exchange, ((BearerTenants.Refused) result).detail(), group));
        }
        if (missing) {
            return unauthorized(exchange, missingKeyBody, group);
        }
        TenantLookup lookup = tenants.lookup(apiKey);
        if (lookup instanceof TenantLookup.Verified verified) {
            return enforce(exchange, chain, routeId, verified.tenant(), true, verified.tenant());
        }
        if (lookup instanceof TenantLookup.Unverified) {
            // One bucket shared by all unverified requests: its counters would tell about other clients' traffic.
            return enforce(exchange, chain, routeId, TenantLookup.Unverified.SHARED_BUCKET_TENANT, false, null);
        }
        if (lookup instanceof TenantLookup.UnknownKey) {
            return unauthorized(exchange, unknownKeyBody, group);
        }
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, "5");
        return ProblemResponses.write(exchange.getResponse(), HttpStatus.SERVICE_UNAVAILABLE, directoryUnavailableBody);
    }

    /**
     * Limits the request as the anonymous caller of its client address group: the group's own state in
     * the headers, no tenant for the backend.
     */
    private Mono<Void> anonymous(ServerWebExchange exchange, GatewayFilterChain chain, String routeId) {
        return enforce(exchange, chain, routeId, addresses.anonymousTenant(exchange.getRequest()), true, null);
    }

    /**
     * Limits the request in {@code bucketTenant}'s bucket. {@code showHeaders}: whether the bucket is the
     * caller's own, so its state may be shown (not the bucket every unverified request shares);
     * {@code backendTenant}: the tenant a verified key belongs to, told to the backend, or null.
     */
    private Mono<Void> enforce(ServerWebExchange exchange, GatewayFilterChain chain, String routeId,
                               String bucketTenant, boolean showHeaders, String backendTenant) {
        return enforcer.enforce(bucketTenant, routeId)
                .flatMap(verdict -> respond(exchange, chain, routeId, verdict, showHeaders, backendTenant));
    }

    private Mono<Void> respond(ServerWebExchange exchange, GatewayFilterChain chain, String routeId,
                               LimitEnforcer.Verdict verdict, boolean showHeaders, String verifiedTenant) {
        if (verdict.multiLimit()) {
            return respondToLimits(exchange, chain, routeId, verdict, showHeaders, verifiedTenant);
        }
        if (verdict.rule().shadow()) {
            return admit(exchange, chain, verifiedTenant); // a dry run: invisible to the client
        }
        Decision decision = verdict.decision();
        ServerHttpResponse response = exchange.getResponse();
        if (showHeaders) {
            headers.write(response.getHeaders()::set, routeId, verdict.rule(), decision);
        }
        if (verdict.admitted()) {
            return admit(exchange, chain, verifiedTenant);
        }
        long retryAfter = decision.retryAfterSeconds();
        if (retryAfter == Decision.NEVER) {
            return ProblemResponses.write(response, HttpStatus.TOO_MANY_REQUESTS, rejectionBodies.never(routeId));
        }
        response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter));
        return ProblemResponses.write(response, HttpStatus.TOO_MANY_REQUESTS,
                rejectionBodies.retryAfter(routeId, retryAfter));
    }

    /** A multi-limit verdict: every enforced limit in the headers, the rejecting ones in the body. */
    private Mono<Void> respondToLimits(ServerWebExchange exchange, GatewayFilterChain chain, String routeId,
                                       LimitEnforcer.Verdict verdict, boolean showHeaders, String verifiedTenant) {
        MultiLimitDecision decision = verdict.limits();
        ServerHttpResponse response = exchange.getResponse();
        if (showHeaders) {
            headers.writeLimits(response.getHeaders()::set, decision);
        }
        if (decision.admitted()) {
            return admit(exchange, chain, verifiedTenant);
        }
        long retryAfter = decision.retryAfterMillis();
        if (retryAfter != Decision.NEVER) {
            response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(TokenBucketMath.ceilDiv(retryAfter, 1000)));
        }
        return ProblemResponses.write(response, HttpStatus.TOO_MANY_REQUESTS, rejectionBodies.limits(routeId, decision));
    }

    private static Mono<Void> admit(ServerWebExchange exchange, GatewayFilterChain chain, String verifiedTenant) {
        if (verifiedTenant != null) {
            exchange.getAttributes().put(TENANT_ATTRIBUTE, verifiedTenant);
        }
        return chain.filter(exchange);
    }

    /** 401, counted as a failed authentication of the client's address ({@code group} if already known). */
    private Mono<Void> unauthorized(ServerWebExchange exchange, byte[] body, String group) {
        countFailure(exchange, group);
        ServerHttpResponse response = exchange.getResponse();
        response.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "ApiKey header=\"" + apiKeyHeader + "\"");
        return ProblemResponses.write(response, HttpStatus.UNAUTHORIZED, body);
    }

    private static Mono<Void> tooManyFailures(ServerHttpResponse response, long retryAfterSeconds) {
        ProblemDetail problem = ProblemResponses.problem(HttpStatus.TOO_MANY_REQUESTS, AUTHENTICATION_FAILURES,
                "Too many failed authentications from this address; retry in " + retryAfterSeconds + " s.");
        problem.setProperty("retryAfterSeconds", retryAfterSeconds);
        response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
        return ProblemResponses.write(response, problem);
    }

    /** The token of the one {@code Authorization: Bearer <token>} header, or null. */
    static String bearerToken(HttpHeaders headers) {
        List<String> values = headers.get(HttpHeaders.AUTHORIZATION);
        if (values == null || values.size() != 1) {
            return null;
        }
        String value = values.get(0);
        if (value.length() <= 7 || !value.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = value.substring(7).strip();
        return token.isEmpty() ? null : token;
    }

    /** 401 {@code invalid-token}, counted as {@link #unauthorized} is. */
    private Mono<Void> invalidToken(ServerWebExchange exchange, String detail, String group) {
        countFailure(exchange, group);
        ServerHttpResponse response = exchange.getResponse();
        response.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
        return ProblemResponses.write(response, ProblemResponses.problem(HttpStatus.UNAUTHORIZED, "invalid-token", detail));
    }

    private void countFailure(ServerWebExchange exchange, String group) {
        if (authFailures != null) {
            authFailures.failed(group != null ? group : addresses.group(exchange.getRequest()));
        }
    }
}
