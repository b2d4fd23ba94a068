package dev.tollgate.bench.scenario;

import static dev.tollgate.bench.process.BenchRoutes.BENCH_PATH;

import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.load.OpenLoopLoad;
import dev.tollgate.bench.load.RequestMix;
import dev.tollgate.bench.metrics.DecisionCounters;
import dev.tollgate.bench.metrics.DecisionSplit;
import dev.tollgate.testkit.CommandCounts;
import dev.tollgate.bench.redis.RedisStats;
import java.time.Duration;
import java.util.List;

/**
 * What one hot key costs Redis with token leases (the gateway's defaults): a single tenant, well
 * within its limit, sends a fixed rate spread round-robin over the Tollgate instances, first for
 * {@link #BECOMING_HOT} (counted apart), then for the measured run; Redis's own command statistics
 * count the script calls made during the measured run: lease takes, per-request decisions left, and, after a pause of {@link #GIVE_BACK_WAIT} so that unspent tokens
 * have been handed back, the give-backs. The instances' heartbeats (one script call per instance
 * per second) fall in the same window and are counted too, so the figure errs on the high side.
 */
public final class HotKeyCost {

    public static final String HOT_TENANT = "hot-tenant";

    /** Twice the default lease time-to-live: unspent leases are back in Redis by then. */
    public static final long GIVE_BACK_WAIT_SECONDS = 2;
    static final Duration GIVE_BACK_WAIT = Duration.ofSeconds(GIVE_BACK_WAIT_SECONDS);

    /** Unmeasured start of the run, in which the key becomes hot on every instance. */
    public static final Duration BECOMING_HOT = Duration.ofMillis(1500);

    /**
     * One hot-key run against a cluster of Tollgate instances; {@code decisions} is what the
     * instances counted over the measured run and the give-back wait.
     */
    public record Result(int instances, double offeredRate, long sent, long admitted, long limited, long failed,
                         long scriptCalls, long becomingHotCalls, DecisionSplit decisions) {

        /** Redis script calls per admitted request. */
        public double callsPerAdmitted() {
            return admitted == 0 ? Double.NaN : (double) scriptCalls / admitted;
        }
    }

    private HotKeyCost() {
    }

    public static Result run(List<HttpTarget> instances, DecisionCounters counters, RedisStats redis, double rate,
                             Duration duration) {
        // The target is about a key that is hot: first let each instance see it at this rate long
        // enough to lease it (its rate meter needs the threshold's worth of requests, 100 at the
        // defaults, decided one call each meanwhile); those calls are reported apart.
        OpenLoopLoad load = new OpenLoopLoad(instances, RequestMix.singleTenant(BENCH_PATH, HOT_TENANT));
        CommandCounts start = redis.commandCounts();
        load.run(rate, BECOMING_HOT, Duration.ofSeconds(5));
        CommandCounts before = redis.commandCounts();
        DecisionCounters.Snapshot countersBefore = counters.snapshot();
        long becomingHotCalls = before.since(start).scriptCalls();
        LoadResult measured = load.run(rate, duration, Duration.ofSeconds(5));
        try {
            Thread.sleep(GIVE_BACK_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for leases to be given back", e);
        }
        long calls = redis.commandCounts().since(before).scriptCalls();
        return new Result(instances.size(), rate, measured.sent(), measured.ok(), measured.limited(),
                measured.otherStatus() + measured.errors(), calls, becomingHotCalls,
                counters.snapshot().since(countersBefore));
    }
}
