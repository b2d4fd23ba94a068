package dev.tollgate.bench.builtin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * Spring Cloud Gateway's {@code request_rate_limiter.lua}, read from the copy of
 * spring-cloud-gateway-server-webflux inside the gateway jar: the very script the built-in
 * baseline runs, so that its Redis footprint can be measured the same way as Tollgate's.
 */
public final class BuiltInLimiterScript {

    private static final String LIBRARY_PREFIX = "BOOT-INF/lib/spring-cloud-gateway-server-webflux-";
    private static final String SCRIPT = "META-INF/scripts/request_rate_limiter.lua";

    private BuiltInLimiterScript() {
    }

    public static String readFrom(Path gatewayJar) {
        try (ZipFile jar = new ZipFile(gatewayJar.toFile())) {
            Enumeration<? extends ZipEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                if (entry.getName().startsWith(LIBRARY_PREFIX) && entry.getName().endsWith(".jar")) {
                    try (ZipInputStream library = new ZipInputStream(jar.getInputStream(entry))) {
                        for (ZipEntry inner; (inner = library.getNextEntry()) != null; ) {
                            if (inner.getName().equals(SCRIPT)) {
                                return new String(library.readAllBytes(), StandardCharsets.UTF_8);
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + gatewayJar, e);
        }
        throw new IllegalStateException("no " + SCRIPT + " in " + LIBRARY_PREFIX + "*.jar of " + gatewayJar);
    }

    /** The two keys the built-in limiter keeps per bucket ({@code RedisRateLimiter.getKeys}). */
    public static List<String> keys(String routeId, String key) {
        String prefix = "request_rate_limiter.{" + routeId + "." + key + "}.";
        return List.of(prefix + "tokens", prefix + "timestamp");
    }

    /** Its arguments: rate, capacity, now (empty: Redis's TIME), requested tokens. */
    public static List<String> args(long replenishRate, long burstCapacity) {
        return List.of(Long.toString(replenishRate), Long.toString(burstCapacity), "", "1");
    }
}
