package dev.tollgate.core.limits;

import dev.tollgate.core.LogText;

/** How a refused value is quoted in an error: bounded and escaped, since it may come from a request. */
final class LimitText {

    private static final int MAX_QUOTED = 80;

    private LimitText() {
    }

    static String quote(String value) {
        return value == null ? "null" : "'" + LogText.escape(value, MAX_QUOTED) + "'";
    }
}
