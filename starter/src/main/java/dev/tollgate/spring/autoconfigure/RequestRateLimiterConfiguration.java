package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.filter.TollgateRateLimiter;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.config.conditional.ConditionalOnEnabledFilter;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.PrincipalNameKeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.annotation.Bean;

/**
 * Spring Cloud Gateway's {@code RequestRateLimiter} filter for applications that have no
 * {@code RateLimiter} of their own. Spring Cloud Gateway creates that filter only when some bean of
 * type {@code RateLimiter} exists, and makes it the limiter of every route that names none.
 * Tollgate's {@code tollgateRateLimiter} is not such a candidate (it is reached by name only, so it
 * never takes those routes over), so without this an application whose only limiter is Tollgate's
 * would have no {@code RequestRateLimiter} to name it in. Backs off when Spring Cloud Gateway (with
 * its {@code redisRateLimiter}, or the application's own) has made the filter, and when the filter is
 * switched off ({@code spring.cloud.gateway.server.webflux.filter.request-rate-limiter.enabled=false}).
 */
@AutoConfiguration(after = {GatewayAutoConfiguration.class, TollgateAutoConfiguration.class})
@ConditionalOnClass(RequestRateLimiterGatewayFilterFactory.class)
public class RequestRateLimiterConfiguration {

    /**
     * Routes that name no limiter get Tollgate's: there is no other. Their key is the application's
     * {@code KeyResolver} if it has exactly one, else the principal's name (Spring Cloud Gateway's own default).
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnEnabledFilter
    RequestRateLimiterGatewayFilterFactory requestRateLimiterGatewayFilterFactory(BeanFactory beans,
                                                                                  ObjectProvider<KeyResolver> keys) {
        RateLimiter<?> tollgate = beans.getBean(TollgateRateLimiter.BEAN_NAME, RateLimiter.class);
        return new RequestRateLimiterGatewayFilterFactory(tollgate, keys.getIfUnique(PrincipalNameKeyResolver::new));
    }
}
