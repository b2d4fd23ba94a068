package dev.tollgate.redis;

import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The multi-limit script's contract on one standalone Redis server, started once per test class by
 * {@link #startServer()}: what differs between the servers and layouts tested is only which server
 * runs and, where a subclass says so, the key layout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StandaloneMultiLimitScriptContract extends MultiLimitScriptContract {

    protected RedisServer server;
    private RedisClient client;
    private ScriptCalls calls;
    private RedisClusterCommands<byte[], byte[]> bytes;

    /** The server this class tests on. */
    protected abstract RedisServer startServer();

    @BeforeAll
    void startRedis() {
        server = startServer();
        client = RedisClient.create(server.uri());
        calls = ScriptCalls.on(client.connect());
        bytes = client.connect(ByteArrayCodec.INSTANCE).sync();
    }

    @AfterAll
    void stopRedis() {
        if (client != null) {
            client.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected ScriptCalls calls() {
        return calls;
    }

    @Override
    protected RedisClusterCommands<byte[], byte[]> bytes() {
        return bytes;
    }

    @Override
    protected StatefulConnection<String, String> newConnection() {
        return client.connect();
    }
}
