package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisBinary;
import dev.tollgate.testkit.RedisServer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The multi-limit script's contract on the Redis 6.2 binary the testkit ships (dev mode's fallback). */
class MultiLimitScriptRedis62Test extends StandaloneMultiLimitScriptContract {

    @Override
    protected RedisServer startServer() {
        return RedisServer.start(RedisBinary.embedded(), List.of());
    }

    @Test
    void runsOnRedisSixTwo() {
        assertThat(server.command("INFO", "server")).contains("redis_version:6.2.");
    }
}
