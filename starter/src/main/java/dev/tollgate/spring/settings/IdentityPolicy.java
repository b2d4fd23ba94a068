package dev.tollgate.spring.settings;

import java.util.Locale;

/**
 * Who the global filter takes a request on a route to come from ({@code tollgate.routes.<route-id>.identity}).
 * The public routes every API has (sign-up, login, a public catalogue) cannot require an API key; they
 * are limited by the caller's address instead, or not at all.
 */
public enum IdentityPolicy {
    /** The tenant of the API key; a request without a valid key is answered 401 (the default). */
    API_KEY("api-key"),
    /** The tenant of the API key when there is one; a request without a key is an anonymous caller. */
    OPTIONAL("optional"),
    /** Every caller is anonymous, limited by client address; API keys are not even read. */
    ANONYMOUS("anonymous"),
    /** Not limited at all: no token is taken (the edge checks still apply). */
    NONE("none");

    private final String value;

    IdentityPolicy(String value) {
        this.value = value;
    }

    /** The setting's spelling. */
    public String value() {
        return value;
    }

    /** The policy spelled {@code text} (case and surrounding spaces ignored), or null if none is. */
    static IdentityPolicy parse(String text) {
        if (text == null) {
            return null;
        }
        String wanted = text.strip().toLowerCase(Locale.ROOT);
        for (IdentityPolicy policy : values()) {
            if (policy.value.equals(wanted)) {
                return policy;
            }
        }
        return null;
    }
}
