package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.testkit.FreePort;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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
                Duration.ofMillis(100), commands -> {
                    connectedCallbacks.incrementAndGet();
                    return CompletableFuture.completedFuture(null);
                })) {
            connector.start();
            RedisBucketStore store = new RedisBucketStore(new ScriptCalls(connector, Duration.ofSeconds(5), MonotonicClock.system()));
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
        }, Duration.ofMillis(50), commands -> CompletableFuture.completedFuture(null));
        connector.start();
        connector.close();
        int afterClose = attempts.get();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                .until(() -> attempts.get() == afterClose);
    }

    @Test
    void theFirstOutcomeIsReadyOnlyOnceEveryConnectionHasItsLoopAndThePostConnectStepIsDone() {
        RedisClient client = RedisClient.create();
        CompletableFuture<Void> scriptsLoaded = new CompletableFuture<>();
        try (RedisServer redis = RedisServer.start();
             RedisConnector connector = new RedisConnector(
                     () -> client.connectAsync(StringCodec.UTF8, RedisURI.create(redis.host(), redis.port())),
                     2, Duration.ofMillis(100), commands -> scriptsLoaded)) {
            connector.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> connector.lanes() == 2);
            assertThat(connector.awaitFirstOutcome(Duration.ofMillis(50)))
                    .as("not ready while the post-connect step runs").isFalse();
            scriptsLoaded.complete(null);
            assertThat(connector.awaitFirstOutcome(Duration.ofSeconds(10))).isTrue();
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aRefusedFirstAttemptEndsTheWaitAtOnce() {
        RedisClient client = RedisClient.create();
        int port = FreePort.find();
        try (RedisConnector connector = new RedisConnector(
                () -> client.connectAsync(StringCodec.UTF8, RedisURI.create("127.0.0.1", port)),
                Duration.ofSeconds(30), commands -> CompletableFuture.completedFuture(null))) {
            connector.start();
            // Far longer than a refused connect takes: the wait must end with the failure, not the time.
            CompletableFuture<Boolean> outcome = CompletableFuture.supplyAsync(
                    () -> connector.awaitFirstOutcome(Duration.ofMinutes(5)));
            assertThat(outcome).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
        } finally {
            client.shutdown();
        }
    }
}
