package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.Decision;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.testkit.CommandCounts;
import io.netty.channel.DefaultEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Requests made on one event loop in one turn go to Redis in one script call, and are decided
 * exactly as one call each would decide them: in order, one bucket after the other, a bucket named
 * twice decided on what the first decision left.
 */
class BatchedDecisionsTest {

    private static LiveRedis redis;
    private static RedisBucketStore store;

    @BeforeAll
    static void start() {
        redis = LiveRedis.start();
        store = RedisBucketStore.on(redis.connection);
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    /** Script calls since now, once the script is cached (so that no NOSCRIPT retry counts). */
    private static void resetStats() {
        store.tryAcquire(new BucketKey("warm", "up"), RateLimitRule.of(1, 1).limits()).toCompletableFuture().join();
        redis.connection.sync().configResetstat();
    }

    private static long scriptCalls() {
        return CommandCounts.parse(redis.connection.sync().info("commandstats")).scriptCalls();
    }

    /** Makes {@code requests} acquisitions in one task of an event loop, as an HTTP loop would. */
    private static List<Decision> inOneTurn(List<BucketKey> keys, BucketLimits limits) throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            CompletableFuture<List<CompletableFuture<Decision>>> issued = new CompletableFuture<>();
            loop.execute(() -> {
                List<CompletableFuture<Decision>> decisions = new ArrayList<>();
                keys.forEach(key -> decisions.add(store.tryAcquire(key, limits).toCompletableFuture()));
                issued.complete(decisions);
            });
            List<Decision> decided = new ArrayList<>();
            for (CompletableFuture<Decision> d : issued.get(5, TimeUnit.SECONDS)) {
                decided.add(d.get(5, TimeUnit.SECONDS));
            }
            return decided;
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void fiftyRequestsOfOneTurnCostOneScriptCallAndAreDecidedInOrder() throws Exception {
        BucketKey hot = new BucketKey("batched-" + System.nanoTime(), "orders");
        List<BucketKey> keys = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            keys.add(i % 5 == 4 ? new BucketKey("other-" + i + "-" + System.nanoTime(), "orders") : hot);
        }
        resetStats();
        List<Decision> decided = inOneTurn(keys, RateLimitRule.of(30, 0.001).limits());

        assertThat(scriptCalls()).as("script calls for 50 requests").isEqualTo(1);
        // 40 requests on the hot bucket of 30: the first 30 pass, in order, with the remaining count
        // going down one by one; the 10 other buckets are fresh.
        int admittedHot = 0;
        for (int i = 0; i < keys.size(); i++) {
            Decision d = decided.get(i);
            if (keys.get(i) == hot) {
                if (admittedHot < 30) {
                    assertThat(d.allowed()).as("request %d", i).isTrue();
                    assertThat(d.remaining()).isEqualTo(29 - admittedHot);
                    admittedHot++;
                } else {
                    assertThat(d.allowed()).as("request %d", i).isFalse();
                }
            } else {
                assertThat(d.allowed()).isTrue();
                assertThat(d.remaining()).isEqualTo(29);
            }
        }
        assertThat(admittedHot).isEqualTo(30);
    }

    @Test
    void moreThanABatchIsSplitIntoCallsOfAtMostTheMaximum() throws Exception {
        List<BucketKey> keys = new ArrayList<>();
        for (int i = 0; i < RedisBucketStore.MAX_BATCH + 10; i++) {
            keys.add(new BucketKey("split-" + i + "-" + System.nanoTime(), "orders"));
        }
        resetStats();
        List<Decision> decided = inOneTurn(keys, RateLimitRule.of(3, 1).limits());
        assertThat(scriptCalls()).isEqualTo(2);
        assertThat(decided).allMatch(Decision::allowed);
    }
}
