package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * twice decided on what the first decision left. A batch waits for the loop's next turns only while
 * they bring more requests, and at most the store's {@code waitTurns} of them.
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

    /**
     * Makes one task of an event loop per element of {@code turns}, each acquiring its keys and then
     * queuing the next: on a {@link DefaultEventLoop} every task is a turn, and the store's end-of-turn
     * task runs between two of them, as between two reads of an HTTP loop.
     */
    private static int callsForTurns(RedisBucketStore batching, List<List<BucketKey>> turns) throws Exception {
        BucketLimits limits = RateLimitRule.of(1000, 1).limits();
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            List<CompletableFuture<Decision>> decisions = new ArrayList<>();
            CompletableFuture<Void> allIssued = new CompletableFuture<>();
            resetStats();
            loop.execute(new Runnable() {
                private int turn;

                @Override
                public void run() {
                    turns.get(turn).forEach(key -> decisions.add(batching.tryAcquire(key, limits).toCompletableFuture()));
                    if (++turn < turns.size()) {
                        loop.execute(this);
                    } else {
                        allIssued.complete(null);
                    }
                }
            });
            allIssued.get(5, TimeUnit.SECONDS);
            for (CompletableFuture<Decision> d : decisions) {
                assertThat(d.get(5, TimeUnit.SECONDS).allowed()).isTrue();
            }
            return (int) scriptCalls();
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static List<List<BucketKey>> turnsOf(int... requestsPerTurn) {
        List<List<BucketKey>> turns = new ArrayList<>();
        for (int n : requestsPerTurn) {
            List<BucketKey> turn = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                turn.add(new BucketKey("turns-" + turns.size() + "-" + i + "-" + System.nanoTime(), "orders"));
            }
            turns.add(turn);
        }
        return turns;
    }

    @Test
    void aBatchWaitsForTheTurnsThatBringMoreRequests_atMostWaitTurnsOfThem() throws Exception {
        RedisBucketStore twoTurns = new RedisBucketStore(ScriptCalls.on(redis.connection), 2);
        assertThat(callsForTurns(twoTurns, turnsOf(2, 3, 1))).as("3 busy turns, waiting up to 2 more").isEqualTo(1);
        // The batch started in turn 1 waits turns 2 and 3, and goes; turns 4 and 5 make the next one.
        assertThat(callsForTurns(twoTurns, turnsOf(1, 1, 1, 1, 1))).as("5 busy turns").isEqualTo(2);

        RedisBucketStore oneTurn = new RedisBucketStore(ScriptCalls.on(redis.connection), 1);
        assertThat(callsForTurns(oneTurn, turnsOf(2, 3, 1))).as("3 busy turns, waiting up to 1 more").isEqualTo(2);

        RedisBucketStore noWait = new RedisBucketStore(ScriptCalls.on(redis.connection), 0);
        assertThat(callsForTurns(noWait, turnsOf(2, 3, 1))).as("3 busy turns, no waiting").isEqualTo(3);
    }

    @Test
    void aTurnThatBringsNoRequestSendsTheBatch() throws Exception {
        RedisBucketStore twoTurns = new RedisBucketStore(ScriptCalls.on(redis.connection), 2);
        // Turn 2 reads nothing: the batch of turn 1 goes at its end, and turn 3 starts another.
        assertThat(callsForTurns(twoTurns, turnsOf(2, 0, 2))).isEqualTo(2);
    }

    @Test
    void aFullBatchDoesNotWait() throws Exception {
        RedisBucketStore twoTurns = new RedisBucketStore(ScriptCalls.on(redis.connection), 2);
        assertThat(callsForTurns(twoTurns, turnsOf(RedisBucketStore.MAX_BATCH, 1, 1))).isEqualTo(2);
    }

    @Test
    void waitTurnsOutsideTheRangeAreRefused() {
        ScriptCalls calls = ScriptCalls.on(redis.connection);
        assertThatThrownBy(() -> new RedisBucketStore(calls, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedisBucketStore(calls, RedisBucketStore.MAX_WAIT_TURNS + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
