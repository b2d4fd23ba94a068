package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the dedicated client leaves out of every call (nothing here connects). */
class DedicatedRedisClientTest {

    @Test
    void neitherClientKeepsLettucesOwnLatencyStatistics() {
        // LatencyUtils is on the test class path, as in the gateway: Lettuce would turn them on.
        try (DedicatedRedisClient standalone = DedicatedRedisClient.standalone(
                RedisURI.create("redis://127.0.0.1:1"), Duration.ofSeconds(1), Duration.ofSeconds(1));
             DedicatedRedisClient cluster = DedicatedRedisClient.cluster(
                     List.of(RedisURI.create("redis://127.0.0.1:1")), Duration.ofSeconds(1), Duration.ofSeconds(1))) {
            assertThat(recordsLettuceLatencies(standalone)).isFalse();
            assertThat(recordsLettuceLatencies(cluster)).isFalse();
        }
    }

    /** Whether the client's Lettuce resources keep per-command latency statistics (read from its private state). */
    private static boolean recordsLettuceLatencies(DedicatedRedisClient client) {
        try {
            Field resources = DedicatedRedisClient.class.getDeclaredField("resources");
            resources.setAccessible(true);
            return ((ClientResources) resources.get(client)).commandLatencyRecorder().isEnabled();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("DedicatedRedisClient keeps its ClientResources elsewhere now", e);
        }
    }
}
