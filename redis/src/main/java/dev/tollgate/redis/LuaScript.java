package dev.tollgate.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/** A Lua script read from a classpath resource once, with the SHA-1 that EVALSHA names it by. */
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

    /**
     * Runs the script by EVALSHA. On NOSCRIPT (the node restarted, {@code SCRIPT FLUSH} ran, or it
     * is a replica just promoted: scripts are cached per node and not replicated) it runs the script
     * once more by EVAL, which also caches it again on that node. Over a cluster connection both
     * calls are routed by the slot of the first key, so they reach the same node.
     */
    public <T> CompletionStage<T> run(RedisScriptingAsyncCommands<String, String> redis,
                                      ScriptOutputType type, String[] keys, String... args) {
        return redis.<T>evalsha(sha1, type, keys, args)
                .exceptionallyCompose(error -> isNoScript(error)
                        ? redis.<T>eval(source, type, keys, args)
                        : CompletableFuture.failedFuture(error));
    }

    private static boolean isNoScript(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null
                ? error.getCause()
                : error;
        return cause instanceof RedisNoScriptException;
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
