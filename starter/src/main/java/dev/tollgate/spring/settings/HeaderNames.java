package dev.tollgate.spring.settings;

/** Checks on configured header names. */
final class HeaderNames {

    private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";

    private HeaderNames() {
    }

    /** Whether {@code name} is an RFC 9110 token, the syntax of a field name. */
    static boolean isToken(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean alphaNumeric = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (!alphaNumeric && TOKEN_SYMBOLS.indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }
}
