package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The multi-limit script's contract on the system's Redis (7 or later; the testkit falls back to 6.2 without one). */
class MultiLimitScriptRedis7Test extends StandaloneMultiLimitScriptContract {

    @Override
    protected LiveRedis startRedis() {
        return LiveRedis.start();
    }

    @Test
    void runsOnRedisSevenOrLater() {
        assertThat(redis.server.command("INFO", "server")).containsPattern("redis_version:[7-9]\\.");
    }

    @Test
    void afterAScriptFlushTheCallIsMadeAgainByEval() {
        redis.server.command("SCRIPT", "FLUSH");
        aKeyExpiresWhenItsLastFieldStopsMattering();
    }
}
