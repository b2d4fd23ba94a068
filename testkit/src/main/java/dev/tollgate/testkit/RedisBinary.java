package dev.tollgate.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a {@code redis-server} executable: the system's when it is on the PATH and at least
 * version 7, else the binary shipped inside the {@code com.github.codemonstur:embedded-redis} jar
 * (Redis 6.2), extracted once per JVM. {@code TOLLGATE_REDIS_SERVER} names a binary explicitly.
 */
public final class RedisBinary {

    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");
    private static volatile Path resolved;
    private static volatile Path embedded;

    private RedisBinary() {
    }

    public static Path locate() {
        Path path = resolved;
        if (path == null) {
            synchronized (RedisBinary.class) {
                path = resolved;
                if (path == null) {
                    path = find();
                    resolved = path;
                }
            }
        }
        return path;
    }

    private static Path find() {
        String explicit = System.getenv("TOLLGATE_REDIS_SERVER");
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit);
        }
        String pathVariable = System.getenv().getOrDefault("PATH", "");
        for (String dir : pathVariable.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isExecutable(candidate) && majorVersion(candidate) >= 7) {
                return candidate;
            }
        }
        return embedded();
    }

    /** The major version {@code redis-server --version} reports, or -1 if it cannot be read. */
    static int majorVersion(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            p.waitFor(10, TimeUnit.SECONDS);
            Matcher m = VERSION.matcher(out);
            return m.find() ? Integer.parseInt(m.group(1)) : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The Redis 6.2 binary shipped in the embedded-redis jar, extracted to a temporary file. */
    public static Path embedded() {
        Path path = embedded;
        if (path == null) {
            synchronized (RedisBinary.class) {
                path = embedded;
                if (path == null) {
                    path = extractEmbedded();
                    embedded = path;
                }
            }
        }
        return path;
    }

    private static Path extractEmbedded() {
        String resource = embeddedResourceName();
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no redis-server >= 7 on the PATH and no embedded binary "
                        + resource + " on the classpath (is com.github.codemonstur:embedded-redis present?)");
            }
            Path dir = Files.createTempDirectory("tollgate-redis-bin");
            Path binary = dir.resolve("redis-server");
            Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
            if (!binary.toFile().setExecutable(true)) {
                throw new IOException("cannot make " + binary + " executable");
            }
            binary.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return binary;
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract the embedded redis-server", e);
        }
    }

    private static String embeddedResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm");
        if (os.contains("mac")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        if (os.contains("linux")) {
            return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
        }
        throw new IllegalStateException("no embedded redis-server for " + os + "/" + arch
                + "; put redis-server >= 7 on the PATH");
    }
}
