package dev.tollgate.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a {@link RedisServer} before a test class and stops it after, whether tests passed or
 * failed. Use as {@code @RegisterExtension static final RedisServerExtension redis = new ...}.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {

    private RedisServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    public RedisServer server() {
        if (server == null) {
            throw new IllegalStateException("the Redis server runs only while the test class does");
        }
        return server;
    }
}
