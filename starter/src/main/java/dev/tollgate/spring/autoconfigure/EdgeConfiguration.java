package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.edge.PathNormalizingFilter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The gateway's edge: what requests must look like before they are routed. Independent of
 * {@code tollgate.enabled}: a gateway that does not limit still routes by the path it forwards.
 */
@Configuration(proxyBeanMethods = false)
class EdgeConfiguration {

    /** On unless {@code tollgate.paths.normalize=false}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "tollgate.paths.normalize", havingValue = "true", matchIfMissing = true)
    PathNormalizingFilter pathNormalizingFilter() {
        return new PathNormalizingFilter();
    }
}
