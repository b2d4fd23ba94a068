package dev.tollgate.spring.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Checks an {@code Authorization} header against the admin token. The scheme name is matched without
 * regard to case ({@code Bearer}, {@code bearer}, {@code BEARER}: RFC 9110 §11.1) and may be followed
 * by more than one space; the token itself is compared exactly, in time that does not depend on where
 * it differs.
 */
public final class BearerCredentials {

    private static final String SCHEME = "Bearer";

    private final byte[] expected;

    public BearerCredentials(String token) {
        this.expected = token.getBytes(StandardCharsets.UTF_8);
    }

    public boolean matches(String authorization) {
        return MessageDigest.isEqual(expected, token(authorization).getBytes(StandardCharsets.UTF_8));
    }

    /** The credentials after a {@code Bearer} scheme, or "" if the header has no such scheme. */
    static String token(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())
                || authorization.charAt(SCHEME.length()) != ' ') {
            return "";
        }
        int start = SCHEME.length();
        while (start < authorization.length() && authorization.charAt(start) == ' ') {
            start++;
        }
        return authorization.substring(start);
    }
}
