package dev.tollgate.spring.filter;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
 *
 * <p>A header is removed under every spelling a backend may read as the same name: any case, and
 * {@code _} for {@code -} ({@code X_Tenant_Id}). CGI-style servers (and nginx's
 * {@code underscores_in_headers}, Django, PHP) turn both {@code X-Tenant-Id} and {@code X_Tenant_Id}
 * into {@code HTTP_X_TENANT_ID}, so a client's underscored copy would otherwise stand beside, or
 * before, the gateway's own.
 *
 * <p>The tenant id is sent percent-encoded wherever it is not printable ASCII: every character
 * outside {@code !} to {@code ~}, and {@code %} itself, becomes the {@code %XX} of each of its UTF-8
 * bytes. Header values are bytes, and ids the admin API accepts never need it; an id that does (the
 * static source takes the key as the tenant's name) then reaches the backend as one unambiguous
 * value, never as a line break or a {@code ?} shared with another tenant.
 */
public final class TenantHeadersFilter implements HttpHeadersFilter, Ordered {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

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
        List<String> drop = null;
        for (String name : input.headerNames()) {
            if (sameName(name, apiKeyHeader) || sameName(name, tenantHeader)) {
                if (drop == null) {
                    drop = new ArrayList<>(2);
                }
                drop.add(name);
            }
        }
        if (drop == null && tenant == null) {
            return input;
        }
        HttpHeaders output = HttpHeaders.copyOf(input); // the input may be the request's own, read-only
        if (drop != null) {
            drop.forEach(output::remove);
        }
        if (tenant != null) {
            output.set(tenantHeader, headerValue(tenant));
        }
        return output;
    }

    /**
     * Whether header {@code name} is {@code header} as a backend may read it: ignoring case, with
     * {@code _} and {@code -} alike. False if {@code header} is null.
     */
    static boolean sameName(String name, String header) {
        if (header == null || name.length() != header.length()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (folded(name.charAt(i)) != folded(header.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static char folded(char c) {
        if (c == '_') {
            return '-';
        }
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    /** {@code tenant} as a header value: printable ASCII other than {@code %} as is, the rest percent-encoded. */
    static String headerValue(String tenant) {
        for (int i = 0; i < tenant.length(); i++) {
            if (!plain(tenant.charAt(i))) {
                return percentEncoded(tenant);
            }
        }
        return tenant;
    }

    private static boolean plain(char c) {
        return c > ' ' && c < 0x7f && c != '%';
    }

    private static String percentEncoded(String tenant) {
        StringBuilder out = new StringBuilder(tenant.length() * 3);
        for (byte b : tenant.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (plain(c)) {
                out.append(c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }
}
