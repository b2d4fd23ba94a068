package dev.tollgate.bench.plugin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a class-path directory holding one auto-configuration class and its registration. Put on
 * the Tollgate jar's {@code loader.path} (Spring Boot's {@code PropertiesLauncher}), it adds that
 * configuration's beans to the gateway without a line of the gateway changing.
 */
public final class GatewayPlugin {

    public static final String IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

    private GatewayPlugin() {
    }

    /** Writes {@code autoConfiguration} (a top-level class with no nested classes) into {@code dir}. */
    public static Path writeTo(Path dir, Class<?> autoConfiguration) {
        String className = autoConfiguration.getName();
        String classFile = className.replace('.', '/') + ".class";
        try (InputStream in = GatewayPlugin.class.getClassLoader().getResourceAsStream(classFile)) {
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
            throw new UncheckedIOException("cannot write the plugin " + className + " to " + dir, e);
        }
    }
}
