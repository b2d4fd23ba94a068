package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import org.junit.jupiter.api.Test;

/** The multi-limit script's contract on the system's Redis (7 or later; the testkit falls back to 6.2 without one). */
class MultiLimitScriptRedis7Test extends StandaloneMultiLimitScriptContract {

    @Override
    protected RedisServer startServer() {
        return RedisServer.start();
    }

    @Test
    void runsOnRedisSevenOrLater() {
        assertThat(server.command("INFO", "server")).containsPattern("redis_version:[7-9]\\.");
    }

    @Test
    void afterAScriptFlushTheCallIsMadeAgainByEval() {
        server.command("SCRIPT", "FLUSH");
        aKeyExpiresWhenItsLastFieldStopsMattering();
    }
}
