package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class InstanceHeartbeatTest {

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect();
    }

    @AfterAll
    static void stopRedis() {
        client.shutdown();
        server.close();
    }

    private static long beat(InstanceHeartbeat heartbeat, String id) {
        return heartbeat.beat(id, Duration.ofSeconds(3)).toCompletableFuture().join();
    }

    @Test
    void countsInstancesThatBeatWithinTheirTimeToLive() {
        InstanceHeartbeat heartbeat = new InstanceHeartbeat(RedisLink.of(connection), "count-test", Duration.ofSeconds(5));
        assertThat(beat(heartbeat, "a")).isEqualTo(1);
        assertThat(beat(heartbeat, "b")).isEqualTo(2);
        assertThat(beat(heartbeat, "a")).isEqualTo(2);

        // "b" last beat 10 s ago by Redis's clock: no longer alive.
        List<String> time = connection.sync().time();
        long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        connection.sync().zadd("count-test", now - 10_000, "b");
        assertThat(beat(heartbeat, "a")).isEqualTo(1);
        assertThat(connection.sync().pttl("count-test")).isBetween(1L, 6_000L);
    }

    @Test
    void aLeavingInstanceIsNoLongerCounted() {
        InstanceHeartbeat heartbeat = new InstanceHeartbeat(RedisLink.of(connection), "leave-test", Duration.ofSeconds(5));
        beat(heartbeat, "a");
        beat(heartbeat, "b");
        heartbeat.leave("b").toCompletableFuture().join();
        assertThat(beat(heartbeat, "a")).isEqualTo(1);
    }

    @Test
    void failsFastWithoutAConnection() {
        InstanceHeartbeat heartbeat = new InstanceHeartbeat(new RedisLink() {
            @Override
            public RedisLane laneOrNull() {
                return null;
            }

            @Override
            public boolean isCluster() {
                return false;
            }
        }, "none", Duration.ofSeconds(5));
        assertThat(heartbeat.beat("a", Duration.ofSeconds(1)).toCompletableFuture())
                .isCompletedExceptionally();
    }

    @Test
    void aBeatAfterTheScriptsWereFlushedLoadsItsScriptAgain() {
        InstanceHeartbeat heartbeat = new InstanceHeartbeat(RedisLink.of(connection), "flush-test", Duration.ofSeconds(5));
        assertThat(beat(heartbeat, "a")).isEqualTo(1);
        connection.sync().scriptFlush();
        assertThat(beat(heartbeat, "b")).as("NOSCRIPT answered by EVAL").isEqualTo(2);
    }

    @Test
    void aBeatRedisDoesNotAnswerFailsAtItsDeadline() {
        InstanceHeartbeat heartbeat = new InstanceHeartbeat(RedisLink.of(connection), "deadline-test",
                Duration.ofMillis(100));
        beat(heartbeat, "a");
        server.freeze();
        try {
            assertThat(heartbeat.beat("a", Duration.ofSeconds(3)).toCompletableFuture())
                    .failsWithin(Duration.ofSeconds(5))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(ReplyTimeoutException.class);
        } finally {
            server.thaw();
        }
    }
}
