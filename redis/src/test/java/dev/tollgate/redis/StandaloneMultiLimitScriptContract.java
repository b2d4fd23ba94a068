package dev.tollgate.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The multi-limit script's contract on one standalone Redis server ({@link LiveRedis}), started once
 * per test class by {@link #startRedis()}: what differs between the servers and layouts tested is
 * only which server runs and, where a subclass says so, the key layout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StandaloneMultiLimitScriptContract extends MultiLimitScriptContract {

    protected LiveRedis redis;
    private ScriptCalls calls;
    private RedisClusterCommands<byte[], byte[]> bytes;

    /** The server this class tests on, with its client. */
    protected abstract LiveRedis startRedis();

    @BeforeAll
    void start() {
        redis = startRedis();
        calls = ScriptCalls.on(redis.connection);
        bytes = redis.client.connect(ByteArrayCodec.INSTANCE).sync();
    }

    @AfterAll
    void stop() {
        if (redis != null) {
            redis.close();
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
        return redis.client.connect();
    }
}
