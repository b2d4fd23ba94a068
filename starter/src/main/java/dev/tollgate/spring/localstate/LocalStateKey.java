package dev.tollgate.spring.localstate;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key that authenticates the files of the local state: derived with HMAC-SHA256 from a secret of
 * the deployment ({@code tollgate.local-state.secret}, or the database password), so that only an
 * instance that knows the secret can write a file the others will read. Two deployments with
 * different secrets refuse each other's files; a change of secret makes the files saved before it
 * unreadable (they are refused once and replaced by the next save).
 */
public final class LocalStateKey {

    private static final String ALGORITHM = "HmacSHA256";
    private static final byte[] PURPOSE = "tollgate local state key 1".getBytes(StandardCharsets.US_ASCII);

    private final SecretKeySpec key;
    private final String origin;

    private LocalStateKey(SecretKeySpec key, String origin) {
        this.key = key;
        this.origin = origin;
    }

    /**
     * The key derived from {@code secret}, which says where it came from in {@code origin} (a setting's
     * name, never the secret).
     */
    public static LocalStateKey derivedFrom(String secret, String origin) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException(origin + " is empty: the local state needs a secret");
        }
        try {
            Mac derivation = Mac.getInstance(ALGORITHM);
            derivation.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
            return new LocalStateKey(new SecretKeySpec(derivation.doFinal(PURPOSE), ALGORITHM), origin);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
        }
    }

    /** Where the secret came from: a setting's name. */
    public String origin() {
        return origin;
    }

    /** A MAC for the file {@code name}, already fed the name, so that one file cannot pass for another. */
    Mac mac(String name) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.update((name + "\n").getBytes(StandardCharsets.UTF_8));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
        }
    }

    @Override
    public String toString() {
        return "LocalStateKey[from " + origin + "]"; // never the key
    }
}
