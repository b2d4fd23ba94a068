package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.ManualClock;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reply deadline judges Redis, not this process: a reply that arrived in time is read even when
 * the I/O thread was kept busy past the deadline; a Redis that does not answer fails the call at
 * the deadline, as measured on the clock the calls are given; the answer comes back on the caller's
 * event loop.
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
        ScriptCalls calls = new ScriptCalls(link, Duration.ofMillis(50), MonotonicClock.system());
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
        ScriptCalls calls = new ScriptCalls(link, Duration.ofMillis(50), MonotonicClock.system());
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
    void theDeadlineIsTheClocksToSayNotTheIoLoopsTimer() throws Exception {
        WatchedClock clock = new WatchedClock();
        AtomicLong failedAfterNanos = new AtomicLong(-1);
        ScriptCalls calls = new ScriptCalls(link, Duration.ofMillis(50), clock);
        calls.guard(new CallGate() {
            @Override
            public boolean permit() {
                return true;
            }

            @Override
            public void succeeded(long nanos) {
            }

            @Override
            public void failed(long nanos, Throwable error) {
                failedAfterNanos.set(nanos);
            }
        });
        decide(calls, "manual-clock").get(5, TimeUnit.SECONDS); // scripts cached, connection warm
        EventExecutor io = link.laneOrNull().ioLoop();
        redis.server.freeze();
        try {
            // Called on the I/O loop, the call is written (and its time read) before submit returns.
            CompletableFuture<long[]> reply = io.submit(() -> decide(calls, "manual-clock")).get(5, TimeUnit.SECONDS);
            int readsAtWrite = clock.reads();

            // The loop's timer comes due after 50 ms of real time and looks at the clock, which says
            // 40 ms: the call stays open, however often it looks.
            clock.manual.advanceMillis(40);
            await().atMost(Duration.ofSeconds(5)).until(() -> clock.reads() >= readsAtWrite + 2);
            assertThat(reply).isNotDone();

            // At 50 ms on the clock, the next look fails the call, and the breaker hears it took 50 ms.
            clock.manual.advanceMillis(10);
            assertThat(reply).failsWithin(Duration.ofSeconds(5))
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(ReplyTimeoutException.class);
            assertThat(failedAfterNanos.get()).isEqualTo(Duration.ofMillis(50).toNanos());
        } finally {
            redis.server.thaw();
        }
    }

    /** A manual clock that counts how often it is read. */
    private static final class WatchedClock implements MonotonicClock {

        final ManualClock manual = new ManualClock();
        private final AtomicInteger reads = new AtomicInteger();

        @Override
        public long nanoTime() {
            reads.incrementAndGet();
            return manual.nanoTime();
        }

        int reads() {
            return reads.get();
        }
    }

    @Test
    void theAnswerComesBackOnTheCallersEventLoop() throws Exception {
        ScriptCalls calls = new ScriptCalls(link, Duration.ofSeconds(5), MonotonicClock.system());
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

    @Test
    void textArgumentsReachTheScriptAsTheyAre() throws Exception {
        ScriptCalls calls = new ScriptCalls(link, Duration.ofSeconds(5), MonotonicClock.system());
        LuaScript heartbeat = LuaScript.fromResource(InstanceHeartbeat.SCRIPT_RESOURCE);
        assertThat(calls.call(heartbeat, new String[] {"text-args"}, "instance-a", "3000").get(5, TimeUnit.SECONDS))
                .containsExactly(1L);
        assertThat(redis.connection.sync().zscore("text-args", "instance-a")).isNotNull();
    }

    @Test
    void theFailureOfAStageIsTheCauseOfItsCompletionException() {
        IllegalStateException cause = new IllegalStateException("refused");
        assertThat(ScriptCalls.failureOf(new java.util.concurrent.CompletionException(cause))).isSameAs(cause);
        assertThat(ScriptCalls.failureOf(cause)).isSameAs(cause);
        java.util.concurrent.CompletionException bare = new java.util.concurrent.CompletionException("no cause", null);
        assertThat(ScriptCalls.failureOf(bare)).isSameAs(bare);
    }
}
