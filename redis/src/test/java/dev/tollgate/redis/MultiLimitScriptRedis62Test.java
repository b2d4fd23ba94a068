package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisBinary;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The multi-limit script's contract on the Redis 6.2 binary the testkit ships (dev mode's fallback). */
class MultiLimitScriptRedis62Test extends MultiLimitScriptContract {

    private static RedisServer server;
    private static RedisClient client;
    private static ScriptCalls calls;
    private static RedisClusterCommands<byte[], byte[]> bytes;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start(RedisBinary.embedded(), List.of());
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

    @Test
    void runsOnRedisSixTwo() {
        assertThat(server.command("INFO", "server")).contains("redis_version:6.2.");
    }
}
