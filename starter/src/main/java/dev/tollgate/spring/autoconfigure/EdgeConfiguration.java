package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.edge.EdgeServerCustomizer;
import dev.tollgate.spring.edge.HostHeaderFilter;
import dev.tollgate.spring.edge.PathNormalizingFilter;
import dev.tollgate.spring.filter.TenantHeadersFilter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Configuration;

/**
 * The gateway's edge: how long clients may take, what requests must look like before they are routed,
 * and what the backend is told about the caller. Independent of {@code tollgate.enabled}: a gateway that
 * does not limit still routes by the path it forwards, and still keeps tenants' keys from backends.
 */
@Configuration(proxyBeanMethods = false)
class EdgeConfiguration {

    /** One Host per request (RFC 9112 §3.2): always on. */
    @Bean
    @ConditionalOnMissingBean
    HostHeaderFilter hostHeaderFilter() {
        return new HostHeaderFilter();
    }

    /** On unless {@code tollgate.paths.normalize=false}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "tollgate.paths.normalize", havingValue = "true", matchIfMissing = true)
    PathNormalizingFilter pathNormalizingFilter() {
        return new PathNormalizingFilter();
    }

    /**
     * Applied by Spring Cloud Gateway to every forwarded request's headers: the API key removed (unless
     * {@code tollgate.forwarding.strip-api-key=false}), the tenant header set by the gateway only.
     */
    @Bean
    @ConditionalOnMissingBean
    TenantHeadersFilter tenantHeadersFilter(EdgeProperties edge, TollgateProperties tollgate) {
        EdgeProperties.ForwardingProperties forwarding = edge.forwarding();
        String tenantHeader = forwarding.tenantHeaderOrNull();
        if (tenantHeader != null && tenantHeader.equalsIgnoreCase(tollgate.apiKeyHeader())) {
            throw new InvalidSettingException("tollgate.forwarding.tenant-header", tenantHeader,
                    "tollgate.forwarding.tenant-header must differ from tollgate.api-key-header, both are '"
                            + tenantHeader + "'");
        }
        return new TenantHeadersFilter(forwarding.stripApiKey() ? tollgate.apiKeyHeader() : null, tenantHeader);
    }

    /** Idle and request-read timeouts of the Reactor Netty server Spring Boot starts for the gateway port. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(NettyServerCustomizer.class)
    static class NettyTimeouts {

        @Bean
        @ConditionalOnMissingBean
        EdgeServerCustomizer edgeServerCustomizer(EdgeProperties edge) {
            return new EdgeServerCustomizer(edge.server().idleTimeout(), edge.server().requestReadTimeout());
        }
    }
}
