package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.Decision;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.SerialScheduler;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.testkit.RedisServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.Transports;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Redis connections on event loops someone else owns (the gateway's HTTP loops): one per loop, and
 * a decision asked on a loop is written and answered on that same loop, with no other thread.
 */
class SharedEventLoopsTest {

    /** Loops of the transport Lettuce uses in this module (NIO: no native transport on its class path). */
    private static EventLoopGroup gatewayLikeLoops(int n) {
        assertThat(Transports.socketChannelClass().getSimpleName()).isEqualTo("NioSocketChannel");
        return new MultiThreadIoEventLoopGroup(n, NioIoHandler.newFactory());
    }

    @Test
    void eachLoopGetsAConnectionAndACallNeverLeavesItsLoop() throws Exception {
        EventLoopGroup loops = gatewayLikeLoops(3);
        try (RedisServer redis = RedisServer.start()) {
            DedicatedRedisClient.Loops shared = DedicatedRedisClient.Loops.of(loops);
            assertThat(shared.shared()).isTrue();
            DedicatedRedisClient client = DedicatedRedisClient.standalone(RedisURI.create(redis.host(), redis.port()),
                    Duration.ofSeconds(1), Duration.ofSeconds(1), shared);
            assertThat(client.connections()).isEqualTo(3);
            assertThat(client.onGatewayLoops()).isTrue();
            try (RedisConnector connector = new RedisConnector(client::connect, client.connections(),
                    Duration.ofMillis(100), link -> CompletableFuture.completedFuture(null),
                    SerialScheduler.daemonThread("test-redis-connector"))) {
                connector.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> connector.lanes() == 3);
                RedisBucketStore store = new RedisBucketStore(new ScriptCalls(connector, Duration.ofSeconds(5), MonotonicClock.system()));

                Set<EventExecutor> served = new HashSet<>();
                for (EventExecutor loop : loops) {
                    AtomicReference<Thread> answeredOn = new AtomicReference<>();
                    AtomicReference<EventExecutor> laneLoop = new AtomicReference<>();
                    CompletableFuture<Decision> decided = new CompletableFuture<>();
                    loop.execute(() -> {
                        laneLoop.set(connector.laneOrNull().ioLoop());
                        store.tryAcquire(new BucketKey("shared-" + System.nanoTime(), "r"), RateLimitRule.of(5, 1).limits())
                                .whenComplete((d, e) -> {
                                    answeredOn.set(Thread.currentThread());
                                    decided.complete(d);
                                });
                    });
                    assertThat(decided.get(5, TimeUnit.SECONDS).allowed()).isTrue();
                    Thread loopThread = loop.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
                    assertThat(answeredOn.get()).as("the thread that got the answer").isSameAs(loopThread);
                    served.add(laneLoop.get());
                }
                // Which loop a connection lands on is the group's choice: every loop that got one uses
                // its own; the test's three loops got three connections between them.
                assertThat(served).isNotEmpty();
            } finally {
                client.close();
            }
            assertThat(loops.isShuttingDown()).as("the loops are not the client's to shut down").isFalse();
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void loopsThatCannotCarryLettucesChannelsAreNotUsed() {
        DefaultEventLoopGroup notForSockets = new DefaultEventLoopGroup(1);
        try {
            assertThat(DedicatedRedisClient.Loops.of(notForSockets).shared()).isFalse();
            assertThat(DedicatedRedisClient.Loops.of(null).shared()).isFalse();
        } finally {
            notForSockets.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
