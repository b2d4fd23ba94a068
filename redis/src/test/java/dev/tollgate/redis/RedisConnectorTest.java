package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.ManualScheduler;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.SerialScheduler;
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
                Duration.ofMillis(100), link -> {
                    connectedCallbacks.incrementAndGet();
                    return CompletableFuture.completedFuture(null);
                }, SerialScheduler.daemonThread("test-redis-connector"))) {
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
        }, Duration.ofMillis(50), link -> CompletableFuture.completedFuture(null),
                SerialScheduler.daemonThread("test-redis-connector"));
        connector.start();
        connector.close();
        int afterClose = attempts.get();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                .until(() -> attempts.get() == afterClose);
    }

    @Test
    void failedAttemptsAreRetriedEveryRetryDelayOnTheSchedulerHandedIn() {
        AtomicInteger attempts = new AtomicInteger();
        ManualScheduler scheduler = new ManualScheduler();
        try (RedisConnector connector = new RedisConnector(() -> {
            attempts.incrementAndGet();
            throw new CompletionException(new IllegalStateException("refused"));
        }, Duration.ofSeconds(1), link -> CompletableFuture.completedFuture(null), scheduler)) {
            assertThat(attempts).as("nothing before start").hasValue(0);
            connector.start();
            assertThat(attempts).hasValue(1);
            assertThat(scheduler.pendingDelays()).containsExactly(Duration.ofSeconds(1));
            scheduler.advance(Duration.ofMillis(999));
            assertThat(attempts).hasValue(1);
            scheduler.advance(Duration.ofMillis(1));
            assertThat(attempts).hasValue(2);
            scheduler.advance(Duration.ofSeconds(3));
            assertThat(attempts).hasValue(5);
        }
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(attempts).as("the scheduler is closed with the connector").hasValue(5);
        assertThat(scheduler.pendingDelays()).isEmpty();
    }

    @Test
    void theFirstOutcomeIsReadyOnlyOnceEveryConnectionHasItsLoopAndThePostConnectStepIsDone() {
        RedisClient client = RedisClient.create();
        CompletableFuture<Void> scriptsLoaded = new CompletableFuture<>();
        try (RedisServer redis = RedisServer.start();
             RedisConnector connector = new RedisConnector(
                     () -> client.connectAsync(StringCodec.UTF8, RedisURI.create(redis.host(), redis.port())),
                     2, Duration.ofMillis(100), link -> scriptsLoaded,
                     SerialScheduler.daemonThread("test-redis-connector"))) {
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
                Duration.ofSeconds(30), link -> CompletableFuture.completedFuture(null),
                SerialScheduler.daemonThread("test-redis-connector"))) {
            connector.start();
            // Far longer than a refused connect takes: the wait must end with the failure, not the time.
            CompletableFuture<Boolean> outcome = CompletableFuture.supplyAsync(
                    () -> connector.awaitFirstOutcome(Duration.ofMinutes(5)));
            assertThat(outcome).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void thePostConnectStepCanMakeItsCallsThroughTheConnector() {
        RedisClient client = RedisClient.create();
        BucketKey warmUp = new BucketKey("warm-up", "r");
        try (RedisServer redis = RedisServer.start();
             RedisConnector connector = new RedisConnector(
                     () -> client.connectAsync(StringCodec.UTF8, RedisURI.create(redis.host(), redis.port())),
                     Duration.ofMillis(100),
                     link -> new RedisBucketStore(new ScriptCalls(link, Duration.ofSeconds(5), MonotonicClock.system()))
                             .tryAcquire(warmUp, RateLimitRule.of(10, 1).limits()),
                     SerialScheduler.daemonThread("test-redis-connector"))) {
            connector.start();
            assertThat(connector.awaitFirstOutcome(Duration.ofSeconds(10))).isTrue();
            try (var direct = client.connect(RedisURI.create(redis.host(), redis.port()))) {
                assertThat(direct.sync().exists(warmUp.redisKey())).as("the post-connect call reached Redis").isEqualTo(1L);
            }
        } finally {
            client.shutdown();
        }
    }
}
