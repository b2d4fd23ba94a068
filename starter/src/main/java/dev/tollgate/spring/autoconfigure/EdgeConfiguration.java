package dev.tollgate.spring.autoconfigure;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.spring.edge.EdgeServerCustomizer;
import dev.tollgate.spring.edge.HostHeaderFilter;
import dev.tollgate.spring.edge.MalformedRequestLog;
import dev.tollgate.spring.edge.PathNormalizingFilter;
import dev.tollgate.spring.edge.RequestBodyFailureFilter;
import dev.tollgate.spring.filter.TenantHeadersFilter;
import dev.tollgate.spring.settings.EdgeProperties;
import dev.tollgate.spring.settings.InvalidSettingException;
import dev.tollgate.spring.settings.ObservabilityProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The gateway's edge: how long clients may take, what requests must look like before they are routed,
 * and what the backend is told about the caller. Path canonicalisation, API key stripping and the
 * request body's time limits are on by default only where the global filter limits every route
 * ({@link EdgeSwitches}): an application that limits chosen routes, or has the limiter off, sees no
 * change to the others unless it sets them.
 */
@Configuration(proxyBeanMethods = false)
class EdgeConfiguration {

    /** A request whose body failed gets its problem+json, not a 500: always on. */
    @Bean
    @ConditionalOnMissingBean
    RequestBodyFailureFilter requestBodyFailureFilter() {
        return new RequestBodyFailureFilter();
    }

    /** One Host per request (RFC 9112 §3.2): always on. */
    @Bean
    @ConditionalOnMissingBean
    HostHeaderFilter hostHeaderFilter() {
        return new HostHeaderFilter();
    }

    /** {@code tollgate.paths.normalize}, by default on where the global filter limits every route. */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(EdgeSwitches.NormalizedPaths.class)
    PathNormalizingFilter pathNormalizingFilter() {
        return new PathNormalizingFilter();
    }

    /**
     * Applied by Spring Cloud Gateway to every forwarded request's headers: the API key removed
     * ({@code tollgate.forwarding.strip-api-key}, by default where the global filter limits every route), the
     * tenant header set by the gateway only: a client's own is dropped where the global filter limits every
     * route (the one place it is set), and wherever {@code tollgate.forwarding.tenant-header} is set
     * explicitly, as the Tollgate application does, so that switching the limiter or the global filter off
     * never lets a client's copy through to backends that trust it; elsewhere a client's is left alone, as
     * without Tollgate.
     */
    @Bean
    @ConditionalOnMissingBean
    @Conditional(EdgeSwitches.RewrittenForwardedHeaders.class)
    TenantHeadersFilter tenantHeadersFilter(EdgeProperties edge, TollgateProperties tollgate, Environment environment) {
        EdgeProperties.ForwardingProperties forwarding = edge.forwarding();
        String tenantHeader = forwarding.tenantHeaderOrNull();
        if (tenantHeader != null && tenantHeader.equalsIgnoreCase(tollgate.apiKeyHeader())) {
            throw new InvalidSettingException("tollgate.forwarding.tenant-header", tenantHeader,
                    "tollgate.forwarding.tenant-header must differ from tollgate.api-key-header, both are '"
                            + tenantHeader + "'");
        }
        boolean strip = EdgeSwitches.on(forwarding.stripApiKey(), EdgeSwitches.limitsEveryRoute(tollgate));
        boolean tenantHeaderManaged = environment.containsProperty(EdgeSwitches.TENANT_HEADER)
                || EdgeSwitches.limitsEveryRoute(tollgate);
        return new TenantHeadersFilter(strip ? tollgate.apiKeyHeader() : null,
                tenantHeaderManaged ? tenantHeader : null);
    }

    /**
     * Idle, request-read and request-body timeouts of the Reactor Netty server Spring Boot starts for the
     * gateway port, and the problem+json answers to requests its HTTP codec cannot parse. The body rules
     * ({@code tollgate.server.request-body-timeout}) follow the global filter's reach when unset.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(NettyServerCustomizer.class)
    static class NettyTimeouts {

        @Bean
        @ConditionalOnMissingBean
        EdgeServerCustomizer edgeServerCustomizer(EdgeProperties edge, TollgateProperties tollgate,
                                                  ObservabilityProperties observability) {
            return new EdgeServerCustomizer(edge.server().idleTimeout(), edge.server().requestReadTimeout(),
                    EdgeSwitches.requestBodyTimeout(edge.server(), tollgate), new MalformedRequestLog(
                            observability.logging().malformedRequestsPerSecond(), MonotonicClock.system()),
                    MonotonicClock.system());
        }
    }
}
