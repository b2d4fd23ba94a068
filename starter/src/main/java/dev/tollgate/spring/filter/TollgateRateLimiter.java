package dev.tollgate.spring.filter;

import dev.tollgate.core.Decision;
import dev.tollgate.core.TokenBucketMath;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.spring.limiter.LimitEnforcer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.http.HttpHeaders;
import reactor.core.publisher.Mono;

/**
 * Tollgate as the {@link RateLimiter} of Spring Cloud Gateway's own {@code RequestRateLimiter} filter,
 * for applications that configure rate limiting per route the Spring Cloud Gateway way:
 *
 * <pre>{@code
 * filters:
 *   - name: RequestRateLimiter
 *     args:
 *       rate-limiter: "#{@tollgateRateLimiter}"
 *       key-resolver: "#{@myKeyResolver}"
 * }</pre>
 *
 * <p>The key the application's {@code KeyResolver} returns is the tenant; the route is the route's
 * id. Limits come from Tollgate's rules (PostgreSQL or {@code tollgate.rules}), not from filter
 * arguments, so they change at run time like every other rule. Decisions are Tollgate's: Redis with
 * the circuit breaker and local fallback, leases, shadow rules, metrics. The response carries
 * Tollgate's rate-limit headers and, when rejected, {@code Retry-After}; the filter itself sets the
 * status (429 unless its {@code status-code} says otherwise) and ends the exchange with no body.
 */
public final class TollgateRateLimiter implements RateLimiter<TollgateRateLimiter.Config> {

    /** The bean name to refer to in route definitions: {@code #{@tollgateRateLimiter}}. */
    public static final String BEAN_NAME = "tollgateRateLimiter";

    private final LimitEnforcer enforcer;
    private final RateLimitHeaders headers;
    private final Map<String, Config> config = new ConcurrentHashMap<>();

    public TollgateRateLimiter(LimitEnforcer enforcer, RateLimitHeaders headers) {
        this.enforcer = enforcer;
        this.headers = headers;
    }

    /** Filter arguments: none; limits are Tollgate rules. */
    public static final class Config {
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        return enforcer.enforce(id, routeId).map(verdict -> {
            Map<String, String> out = new LinkedHashMap<>();
            if (verdict.multiLimit()) {
                MultiLimitDecision limits = verdict.limits();
                headers.writeLimits(out::put, limits);
                if (!limits.admitted() && limits.retryAfterMillis() != Decision.NEVER) {
                    out.put(HttpHeaders.RETRY_AFTER, Long.toString(TokenBucketMath.ceilDiv(limits.retryAfterMillis(), 1000)));
                }
            } else if (!verdict.rule().shadow()) {
                Decision decision = verdict.decision();
                headers.write(out::put, routeId, verdict.rule(), decision);
                if (!decision.allowed() && decision.retryAfterSeconds() != Decision.NEVER) {
                    out.put(HttpHeaders.RETRY_AFTER, Long.toString(decision.retryAfterSeconds()));
                }
            }
            return new Response(verdict.admitted(), out);
        });
    }

    @Override
    public Map<String, Config> getConfig() {
        return config;
    }

    @Override
    public Class<Config> getConfigClass() {
        return Config.class;
    }

    @Override
    public Config newConfig() {
        return new Config();
    }
}
