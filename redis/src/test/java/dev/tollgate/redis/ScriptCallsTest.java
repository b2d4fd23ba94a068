package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;
import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reply deadline judges Redis, not this process: a reply that arrived in time is read even when
 * the I/O thread was kept busy past the deadline; a Redis that does not answer fails the call at
 * the deadline; the answer comes back on the caller's event loop.
 */
class ScriptCallsTest {

    private static LiveRedis redis;
    private static RedisLink link;

    @BeforeAll
    static void start() {
        redis = LiveRedis.start();
        link = RedisLink.of(redis.connection);
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    private static CompletableFuture<long[]> decide(ScriptCalls calls, String tenant) {
        BucketLimits limits = RateLimitRule.of(5, 1).limits();
        return calls.call(RedisBucketStore.SCRIPT, new String[] {new BucketKey(tenant, "r").redisKey()},
                new long[] {limits.capacityMicros(), limits.refillMicrosPerMilli(), limits.costMicros()});
    }

    @Test
    void aReplyThatArrivedInTimeIsReadEvenWhenTheIoThreadWasBusyPastTheDeadline() throws Exception {
        ScriptCalls calls = new ScriptCalls(link, Duration.ofMillis(50));
        EventExecutor io = link.laneOrNull().ioLoop();
        CompletableFuture<long[]> reply = new CompletableFuture<>();
        // The call is written, then the I/O thread is kept busy for six deadlines: Redis's reply
        // (well under a millisecond) waits in the socket meanwhile.
        io.execute(() -> {
            decide(calls, "busy-io").whenComplete((r, e) -> {
                if (e != null) {
                    reply.completeExceptionally(e);
                } else {
                    reply.complete(r);
                }
            });
            sleep(300);
        });
        assertThat(reply.get(5, TimeUnit.SECONDS)).startsWith(1L, 4L);
    }

    @Test
    void aFrozenRedisFailsTheCallAtItsDeadline() throws Exception {
        ScriptCalls calls = new ScriptCalls(link, Duration.ofMillis(50));
        decide(calls, "frozen").get(5, TimeUnit.SECONDS); // scripts cached, connection warm
        redis.server.freeze();
        try {
            long start = System.nanoTime();
            CompletableFuture<long[]> reply = decide(calls, "frozen");
            assertThat(reply).failsWithin(Duration.ofSeconds(5))
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(ReplyTimeoutException.class);
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(elapsedMillis).as("ms until the call failed").isBetween(50L, 1000L);
        } finally {
            redis.server.thaw();
        }
    }

    @Test
    void theAnswerComesBackOnTheCallersEventLoop() throws Exception {
        ScriptCalls calls = new ScriptCalls(link, Duration.ofSeconds(5));
        DefaultEventLoop caller = new DefaultEventLoop();
        try {
            AtomicReference<Thread> answeredOn = new AtomicReference<>();
            CompletableFuture<Thread> callerThread = new CompletableFuture<>();
            CompletableFuture<long[]> reply = new CompletableFuture<>();
            caller.execute(() -> {
                callerThread.complete(Thread.currentThread());
                decide(calls, "origin").whenComplete((r, e) -> {
                    answeredOn.set(Thread.currentThread());
                    reply.complete(r);
                });
            });
            reply.get(5, TimeUnit.SECONDS);
            assertThat(answeredOn.get()).isSameAs(callerThread.get());
        } finally {
            caller.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
