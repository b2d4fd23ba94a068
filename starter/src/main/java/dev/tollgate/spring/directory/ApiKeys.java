package dev.tollgate.spring.directory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * API keys: 256 random bits, shown once; only their SHA-256 is stored and looked up. A fast hash is
 * enough here (unlike for passwords): the keys are random, so there is nothing to guess from it.
 */
public final class ApiKeys {

    /** Prefix of generated keys, so that they are recognisable in logs and secret scanners. */
    public static final String PREFIX = "tg_";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    });

    private ApiKeys() {
    }

    /** A new random key: {@code tg_} and 43 URL-safe characters. */
    public static String generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The lowercase hex SHA-256 of the key's UTF-8 bytes: what the {@code api_key} table stores. */
    public static String hash(String key) {
        return HexFormat.of().formatHex(SHA256.get().digest(key.getBytes(StandardCharsets.UTF_8)));
    }
}
