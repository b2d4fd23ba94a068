package dev.tollgate.bench.builtin;

import dev.tollgate.bench.plugin.GatewayPlugin;
import java.nio.file.Path;

/**
 * Writes a class-path directory holding {@link ApiKeyResolverAutoConfiguration} and its
 * auto-configuration registration. Put on the Tollgate jar's {@code loader.path}, it turns that jar
 * into the built-in-limiter baseline without a line of the gateway changing.
 */
public final class BuiltInLimiterPlugin {

    static final String IMPORTS = GatewayPlugin.IMPORTS;

    private BuiltInLimiterPlugin() {
    }

    public static Path writeTo(Path dir) {
        return GatewayPlugin.writeTo(dir, ApiKeyResolverAutoConfiguration.class);
    }
}
