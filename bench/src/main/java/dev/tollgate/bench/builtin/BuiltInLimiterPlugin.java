package dev.tollgate.bench.builtin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a class-path directory holding {@link ApiKeyResolverAutoConfiguration} and its
 * auto-configuration registration. Put on the Tollgate jar's {@code loader.path}, it turns that jar
 * into the built-in-limiter baseline without a line of the gateway changing.
 */
public final class BuiltInLimiterPlugin {

    static final String IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

    private BuiltInLimiterPlugin() {
    }

    public static Path writeTo(Path dir) {
        String className = ApiKeyResolverAutoConfiguration.class.getName();
        String classFile = className.replace('.', '/') + ".class";
        try (InputStream in = BuiltInLimiterPlugin.class.getClassLoader().getResourceAsStream(classFile)) {
            if (in == null) {
                throw new IllegalStateException(classFile + " is not on the class path");
            }
            Path target = dir.resolve(classFile);
            Files.createDirectories(target.getParent());
            Files.write(target, in.readAllBytes());
            Path imports = dir.resolve(IMPORTS);
            Files.createDirectories(imports.getParent());
            Files.writeString(imports, className + "\n");
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the built-in limiter plugin to " + dir, e);
        }
    }
}
