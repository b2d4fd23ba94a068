package dev.tollgate.spring.autoconfigure;

import java.util.List;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@code tollgate.source=database} (the default) without PostgreSQL support on the class path: the start
 * stops at once, naming the artifact to add ({@link PostgresSupportMissingException}), instead of
 * failing later on a missing rule book or serving without rules.
 */
@Configuration(proxyBeanMethods = false)
@Conditional({TollgateSwitches.RulesFromDatabase.class, PostgresSupportMissingConfiguration.SupportMissing.class})
class PostgresSupportMissingConfiguration {

    /**
     * Refuses before any bean is made: a bean of the gateway's own that needs the rule book would
     * otherwise fail first, with a message that says nothing of PostgreSQL.
     */
    @Bean
    static BeanFactoryPostProcessor tollgatePostgresSupportMissing() {
        return beanFactory -> {
            throw new PostgresSupportMissingException(PostgresSupport.missing(beanFactory.getBeanClassLoader()));
        };
    }

    static final class SupportMissing extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            List<String> missing = PostgresSupport.missing(context.getClassLoader());
            return missing.isEmpty()
                    ? ConditionOutcome.noMatch("PostgreSQL support is on the class path")
                    : ConditionOutcome.match("PostgreSQL support is missing: " + missing);
        }
    }
}
