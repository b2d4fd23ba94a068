package dev.tollgate.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * When the edge's request rewriting is on. Path canonicalisation and API key stripping change what
 * every route receives, so their defaults follow the limiter's reach: on where Tollgate's global
 * filter limits every route ({@code tollgate.enabled} and {@code tollgate.global-filter.enabled}, both
 * on unless set false), off where it limits none (switched off) or only the routes that name
 * {@code #{@tollgateRateLimiter}}, so that adding the starter to an application, or switching it
 * off, changes nothing for routes Tollgate does not limit. An explicit setting wins either way; the
 * Tollgate application sets both on.
 */
final class EdgeSwitches {

    static final String NORMALIZE = "tollgate.paths.normalize";
    static final String STRIP_API_KEY = "tollgate.forwarding.strip-api-key";
    static final String TENANT_HEADER = "tollgate.forwarding.tenant-header";

    private EdgeSwitches() {
    }

    /** Whether the global filter limits every routed request. */
    static boolean limitsEveryRoute(Environment environment) {
        return (boolean) new TollgateSwitches.LimiterOn().value(environment)
                && (boolean) new TollgateSwitches.GlobalFilterOn().value(environment);
    }

    /** The switch {@code setting}: as set, else as the global filter's reach says. */
    static boolean on(Environment environment, String setting) {
        if (!environment.containsProperty(setting)) {
            return limitsEveryRoute(environment);
        }
        // Read before the settings are bound (conditions run first), so refused here with the setting's name.
        SettingCondition.requireTrueOrFalse(environment, setting);
        return Boolean.parseBoolean(environment.getProperty(setting).strip());
    }

    /** Matches when paths are normalised. */
    static final class NormalizedPaths extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Environment environment = context.getEnvironment();
            boolean explicit = environment.containsProperty(NORMALIZE);
            boolean on = on(environment, NORMALIZE);
            String why = explicit ? NORMALIZE + " is " + on : NORMALIZE + " unset, and the global filter "
                    + (on ? "limits" : "does not limit") + " every route";
            return on ? ConditionOutcome.match(why) : ConditionOutcome.noMatch(why);
        }
    }
}
