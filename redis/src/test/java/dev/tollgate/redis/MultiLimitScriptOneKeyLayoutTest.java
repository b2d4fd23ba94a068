package dev.tollgate.redis;

import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The multi-limit script's contract with every state of a tenant in one key ({@link MultiLimitScript.Layout#ONE_KEY_PER_TENANT}), on Redis 7. */
class MultiLimitScriptOneKeyLayoutTest extends MultiLimitScriptContract {

    private static RedisServer server;
    private static RedisClient client;
    private static ScriptCalls calls;
    private static RedisClusterCommands<byte[], byte[]> bytes;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        calls = ScriptCalls.on(client.connect());
        bytes = client.connect(ByteArrayCodec.INSTANCE).sync();
    }

    @AfterAll
    static void stopRedis() {
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

    @Override
    protected MultiLimitScript.Layout layout() {
        return MultiLimitScript.Layout.ONE_KEY_PER_TENANT;
    }
}
