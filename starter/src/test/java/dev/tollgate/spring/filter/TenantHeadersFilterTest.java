package dev.tollgate.spring.filter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

class TenantHeadersFilterTest {

    private final TenantHeadersFilter filter = new TenantHeadersFilter("X-Api-Key", "X-Tenant-Id");

    @Test
    void everySpellingOfTheKeyAndTenantHeadersIsRemoved() {
        HttpHeaders in = new HttpHeaders();
        for (String name : new String[] {"X-Api-Key", "x_api_key", "X_API-KEY", "X-Tenant-Id", "X_Tenant_Id",
                "x-tenant_id", "X-Other"}) {
            in.add(name, "client");
        }
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/"));
        exchange.getAttributes().put(RateLimitFilter.TENANT_ATTRIBUTE, "shop-a");

        HttpHeaders out = filter.filter(in, exchange);

        assertThat(out.headerNames()).containsExactlyInAnyOrder("X-Other", "X-Tenant-Id");
        assertThat(out.get("X-Tenant-Id")).containsExactly("shop-a");
    }

    @Test
    void namesThatOnlyLookAlikeAreKept() {
        HttpHeaders in = new HttpHeaders();
        in.add("X-Tenant-Ids", "a");
        in.add("X-Tenant.Id", "b");
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/"));
        assertThat(filter.filter(in, exchange).headerNames()).containsExactlyInAnyOrder("X-Tenant-Ids", "X-Tenant.Id");
    }

    @Test
    void theTenantIsPercentEncodedWhereItIsNotPrintableAscii() {
        assertThat(TenantHeadersFilter.headerValue("shop-a_1.~")).isEqualTo("shop-a_1.~");
        assertThat(TenantHeadersFilter.headerValue("shopĭa")).isEqualTo("shop%C4%ADa");
        assertThat(TenantHeadersFilter.headerValue("shop?a")).isEqualTo("shop?a");
        assertThat(TenantHeadersFilter.headerValue("a\r\nb c")).isEqualTo("a%0D%0Ab%20c");
        assertThat(TenantHeadersFilter.headerValue("100%")).isEqualTo("100%25");
        assertThat(TenantHeadersFilter.headerValue("é")).isEqualTo("%C3%A9");
    }
}
