package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.ClosedLoopLoad;
import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.load.RequestMix;
import java.time.Duration;

/**
 * Load before measuring, until the target has served enough requests for the JIT to have compiled
 * its hot paths (and connection pools and Redis's script cache to be filled). Counted in requests,
 * not seconds: on a machine slowed by other work, a fixed time may leave a gateway half-compiled,
 * and its first measured run would then show compilation, not the gateway.
 */
public final class WarmUp {

    private static final Duration SLICE = Duration.ofSeconds(2);
    /** Enough in flight to keep a warm gateway busy, so compilation is not waiting for requests. */
    private static final int IN_FLIGHT = 32;

    private WarmUp() {
    }

    /** Returns the requests served; stops at {@code minRequests} or {@code maxTime}, whichever first. */
    public static long run(HttpTarget target, RequestMix mix, long minRequests, Duration maxTime) {
        long deadline = System.nanoTime() + maxTime.toNanos();
        long served = 0;
        while (served < minRequests && System.nanoTime() < deadline) {
            LoadResult slice = new ClosedLoopLoad(target, mix).run(IN_FLIGHT, Duration.ZERO, SLICE);
            served += slice.responses();
        }
        return served;
    }
}
