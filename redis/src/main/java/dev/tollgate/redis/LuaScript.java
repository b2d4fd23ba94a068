package dev.tollgate.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script read from a classpath resource once, with the SHA-1 that EVALSHA names it by. Scripts
 * are run by {@link ScriptCalls} only (deadline, circuit breaker, NOSCRIPT recovery in one place).
 */
public record LuaScript(String name, String source, String sha1) {

    public static LuaScript fromResource(String resource) {
        String source = read(resource);
        return new LuaScript(resource, source, sha1Hex(source));
    }

    /**
     * A script made of several resources, in order: Redis has no includes, so shared Lua functions
     * (e.g. {@code bucket_refill.lua}) are put in front of the scripts that use them. Named after the
     * last resource.
     */
    public static LuaScript fromResources(String... resources) {
        StringBuilder source = new StringBuilder();
        for (String resource : resources) {
            source.append(read(resource)).append('\n');
        }
        String text = source.toString();
        return new LuaScript(resources[resources.length - 1], text, sha1Hex(text));
    }

    private static String read(String resource) {
        try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script not on the classpath: " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    private static String sha1Hex(String source) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
