package dev.tollgate.spring.filter;

import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * What the backend is told about the caller, applied by Spring Cloud Gateway to the headers of every
 * request it forwards. The tenant's API key is a secret that backends have no use for (it would end up
 * in their access logs and in echo or TRACE answers), so it is removed; instead the backend learns who
 * the caller is from the tenant header, which only the gateway sets: a value sent by the client is
 * always dropped, and the header is added only for a request the {@link RateLimitFilter} admitted
 * under a verified API key (not for requests served while keys cannot be checked).
 */
public final class TenantHeadersFilter implements HttpHeadersFilter, Ordered {

    private final String apiKeyHeader;
    private final String tenantHeader;

    /**
     * @param apiKeyHeader the API key header to remove, or null to forward it
     * @param tenantHeader the header that carries the tenant, or null for none (a client's is then left alone)
     */
    public TenantHeadersFilter(String apiKeyHeader, String tenantHeader) {
        this.apiKeyHeader = apiKeyHeader;
        this.tenantHeader = tenantHeader;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE; // last: no other filter re-adds what was removed
    }

    @Override
    public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        String tenant = tenantHeader == null ? null : exchange.getAttribute(RateLimitFilter.TENANT_ATTRIBUTE);
        boolean dropKey = apiKeyHeader != null && input.containsHeader(apiKeyHeader);
        boolean dropTenant = tenantHeader != null && input.containsHeader(tenantHeader);
        if (!dropKey && !dropTenant && tenant == null) {
            return input;
        }
        HttpHeaders output = HttpHeaders.copyOf(input); // the input may be the request's own, read-only
        if (dropKey) {
            output.remove(apiKeyHeader);
        }
        if (dropTenant) {
            output.remove(tenantHeader);
        }
        if (tenant != null) {
            output.set(tenantHeader, tenant);
        }
        return output;
    }
}
