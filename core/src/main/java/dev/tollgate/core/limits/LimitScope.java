package dev.tollgate.core.limits;

import dev.tollgate.core.InvalidRuleException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a {@link Limit} counts: one route of a tenant ({@link Kind#ROUTE}, with that route's id), each
 * route of a tenant in a bucket of its own ({@link Kind#EACH_ROUTE}: today's {@code *} rule), or all
 * of a tenant's routes together ({@link Kind#TENANT}: one bucket for the tenant).
 *
 * @param kind  which of the three
 * @param route the route's id for {@link Kind#ROUTE}; {@code null} for the other two
 */
public record LimitScope(Kind kind, String route) {

    /** Longest route id accepted, in characters. */
    public static final int MAX_ROUTE_LENGTH = 256;

    /** The three scopes, with the names configuration and the admin API use. */
    public enum Kind {
        ROUTE("route"), EACH_ROUTE("each-route"), TENANT("tenant");

        private final String wireName;

        Kind(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        /**
         * The kind named {@code value} ({@code route | each-route | tenant}, any case).
         *
         * @throws InvalidRuleException on field {@code scope}, listing the allowed values
         */
        public static Kind parse(String value) {
            if (value != null) {
                for (Kind kind : values()) {
                    if (kind.wireName.equals(value.toLowerCase(Locale.ROOT))) {
                        return kind;
                    }
                }
            }
            throw new InvalidRuleException("scope", "must be one of "
                    + Arrays.stream(values()).map(Kind::wireName).collect(Collectors.joining(", "))
                    + ", was " + LimitText.quote(value));
        }
    }

    public LimitScope {
        if (kind == null) {
            throw new InvalidRuleException("scope", "is required: one of route, each-route, tenant");
        }
        if (kind == Kind.ROUTE) {
            if (route == null || route.isBlank()) {
                throw new InvalidRuleException("route", "is required with scope route, was " + LimitText.quote(route));
            }
            if (route.length() > MAX_ROUTE_LENGTH) {
                throw new InvalidRuleException("route", "must be at most " + MAX_ROUTE_LENGTH
                        + " characters, was " + route.length());
            }
            if (route.equals("*")) {
                // "*" is how today's rules say "each route"; as a route id it would be ambiguous.
                throw new InvalidRuleException("route", "must be a route id, not '*' (use scope each-route)");
            }
            for (int i = 0; i < route.length(); i++) {
                if (Character.isISOControl(route.charAt(i))) {
                    throw new InvalidRuleException("route", "must not contain control characters, was "
                            + LimitText.quote(route));
                }
            }
        } else if (route != null) {
            throw new InvalidRuleException("route", "is only allowed with scope route, not "
                    + kind.wireName() + ", was " + LimitText.quote(route));
        }
    }

    public static LimitScope route(String route) {
        return new LimitScope(Kind.ROUTE, route);
    }

    public static LimitScope eachRoute() {
        return new LimitScope(Kind.EACH_ROUTE, null);
    }

    public static LimitScope tenant() {
        return new LimitScope(Kind.TENANT, null);
    }

    /** Whether a request on {@code requestRoute} is counted by a limit of this scope. */
    public boolean appliesTo(String requestRoute) {
        return kind != Kind.ROUTE || route.equals(requestRoute);
    }
}
