package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.localstate.LocalStateDirectory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The folder of {@code tollgate.local-state.*}, unless {@code tollgate.local-state.enabled=false}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "tollgate.local-state.enabled", havingValue = "true", matchIfMissing = true)
class LocalStateConfiguration {

    @Bean
    LocalStateDirectory tollgateLocalState(LocalStateProperties properties) {
        return new LocalStateDirectory(properties.directory());
    }
}
