package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisBinary;
import org.junit.jupiter.api.Test;

/** The multi-limit script's contract on the Redis 6.2 binary the testkit ships (dev mode's fallback). */
class MultiLimitScriptRedis62Test extends StandaloneMultiLimitScriptContract {

    @Override
    protected LiveRedis startRedis() {
        return LiveRedis.start(RedisBinary.embedded());
    }

    @Test
    void runsOnRedisSixTwo() {
        assertThat(redis.server.command("INFO", "server")).contains("redis_version:6.2.");
    }
}
