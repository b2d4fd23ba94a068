package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RedisConnectorTest {

    @Test
    void redisMissingAtStartIsRetriedUntilItAppears() {
        int port = FreePort.find();
        RedisClient client = RedisClient.create();
        AtomicInteger connectedCallbacks = new AtomicInteger();
        try (RedisConnector connector = new RedisConnector(
                () -> client.connectAsync(StringCodec.UTF8, RedisURI.create("127.0.0.1", port)),
                Duration.ofMillis(100), commands -> connectedCallbacks.incrementAndGet())) {
            connector.start();
            RedisBucketStore store = new RedisBucketStore(new ScriptCalls(connector, Duration.ofSeconds(5)));
            assertThat(connector.isConnected()).isFalse();
            assertThat(connector.laneOrNull()).isNull();
            assertThat(store.tryAcquire(new BucketKey("t", "r"), RateLimitRule.of(1, 1).limits())
                    .toCompletableFuture())
                    .failsWithin(Duration.ofSeconds(1))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(RedisUnavailableException.class);

            try (RedisServer redis = RedisServer.startOnPort(port)) {
                await().atMost(Duration.ofSeconds(10)).until(connector::isConnected);
                assertThat(connectedCallbacks).hasValue(1);
                assertThat(store.tryAcquire(new BucketKey("t", "r"), RateLimitRule.of(1, 1).limits())
                        .toCompletableFuture().join().allowed()).isTrue();
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void noAttemptIsMadeAfterClose() {
        AtomicInteger attempts = new AtomicInteger();
        RedisConnector connector = new RedisConnector(() -> {
            attempts.incrementAndGet();
            throw new CompletionException(new IllegalStateException("refused"));
        }, Duration.ofMillis(50), commands -> { });
        connector.start();
        connector.close();
        int afterClose = attempts.get();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                .until(() -> attempts.get() == afterClose);
    }
}
