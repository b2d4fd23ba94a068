package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.settings.EdgeProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * When the edge's request rewriting and body rules are on. Path canonicalisation, API key stripping
 * and the request body's time limits change what every route receives, so their defaults follow the
 * limiter's reach: on where Tollgate's global filter limits every route ({@code tollgate.enabled} and
 * {@code tollgate.global-filter.enabled}, both on unless set false), off where it limits none
 * (switched off) or only the routes that name {@code #{@tollgateRateLimiter}}, so that adding the
 * starter to an application, or switching it off, changes nothing for routes Tollgate does not limit.
 * An explicit setting wins either way; the Tollgate application sets them on.
 *
 * <p>Every switch is read as bound into the settings' records (null when unset). Conditions, which
 * run before those records exist, bind the same records with Spring's {@link Binder}: one reading
 * of each value, whichever asks.
 */
final class EdgeSwitches {

    static final String TENANT_HEADER = "tollgate.forwarding.tenant-header";

    /** {@code tollgate.server.request-body-timeout} where it is unset and the global filter limits every route. */
    static final Duration DEFAULT_REQUEST_BODY_TIMEOUT = Duration.ofSeconds(60);

    private EdgeSwitches() {
    }

    /** Whether the global filter limits every routed request. */
    static boolean limitsEveryRoute(TollgateProperties tollgate) {
        return tollgate.enabled() && tollgate.globalFilter().enabled();
    }

    /** The same, from settings not bound yet (in a condition, or where only the environment is at hand). */
    static boolean limitsEveryRoute(Binder binder) {
        return limitsEveryRoute(binder.bindOrCreate("tollgate", TollgateProperties.class));
    }

    /** A switch: as set, else (null) as the global filter's reach says. */
    static boolean on(Boolean setting, boolean limitsEveryRoute) {
        return setting != null ? setting : limitsEveryRoute;
    }

    /**
     * How long a request's body may take to arrive, and whether the body rules apply at all: as set,
     * else {@link #DEFAULT_REQUEST_BODY_TIMEOUT} where the global filter limits every route; zero
     * (off) otherwise.
     */
    static Duration requestBodyTimeout(EdgeProperties.ServerProperties server, TollgateProperties tollgate) {
        Duration setting = server.requestBodyTimeout();
        if (setting != null) {
            return setting;
        }
        return limitsEveryRoute(tollgate) ? DEFAULT_REQUEST_BODY_TIMEOUT : Duration.ZERO;
    }

    private static ConditionOutcome outcome(boolean on, String setting, Object explicit) {
        String why = explicit != null ? setting + " is " + explicit
                : setting + " unset, and the global filter " + (on ? "limits" : "does not limit") + " every route";
        return on ? ConditionOutcome.match(why) : ConditionOutcome.noMatch(why);
    }

    /** Matches when paths are normalised ({@code tollgate.paths.normalize}). */
    static final class NormalizedPaths extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            Boolean normalize = binder.bindOrCreate("tollgate.paths", EdgeProperties.PathProperties.class).normalize();
            return outcome(on(normalize, limitsEveryRoute(binder)), "tollgate.paths.normalize", normalize);
        }
    }

    /**
     * Matches when forwarded requests' headers have anything to change: the API key is stripped, or a
     * tenant header is named. Otherwise no headers filter is registered at all, and forwarding walks
     * no headers on Tollgate's account.
     */
    static final class RewrittenForwardedHeaders extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            EdgeProperties.ForwardingProperties forwarding =
                    binder.bindOrCreate("tollgate.forwarding", EdgeProperties.ForwardingProperties.class);
            if (forwarding.tenantHeaderOrNull() != null) {
                return ConditionOutcome.match("tollgate.forwarding.tenant-header is " + forwarding.tenantHeader());
            }
            boolean strip = on(forwarding.stripApiKey(), limitsEveryRoute(binder));
            return outcome(strip, "tollgate.forwarding.strip-api-key", forwarding.stripApiKey());
        }
    }
}
