package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.metrics.DecisionCounters;
import dev.tollgate.bench.metrics.DecisionSplit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The classic check of a rate limiter under contention: {@code requests} requests from
 * {@code clients} concurrent clients, all on one tenant's bucket of {@code capacity} refilled at
 * {@code ratePerSecond}. A correct limiter admits at most the capacity plus what refilled while the
 * requests were being decided; more means two decisions took the same token.
 */
public final class ParallelBurst {

    /**
     * @param elapsedSeconds from the first request sent to the last answer
     * @param bound          the most a correct limiter may admit: capacity + rate × elapsed
     */
    public record Result(String limiter, int requests, int clients, long admitted, long rejected, long errors,
                         double elapsedSeconds, double bound, DecisionSplit decisions) {

        public boolean withinBound() {
            return admitted <= bound;
        }
    }

    private ParallelBurst() {
    }

    /** {@code requests} must be a multiple of {@code clients}: each client sends its share one after another. */
    public static Result run(String limiter, HttpTarget target, DecisionCounters counters, String path, String tenant,
                             int requests, int clients, long capacity, double ratePerSecond) {
        DecisionCounters.Snapshot before = counters.snapshot();
        AtomicLongArray outcomes = new AtomicLongArray(3); // admitted, rejected, errors
        long start = System.nanoTime();
        Flux.range(0, clients)
                .flatMap(client -> Mono.defer(() -> target.get(path, tenant))
                        .doOnNext(status -> outcomes.incrementAndGet(status == 200 ? 0 : status == 429 ? 1 : 2))
                        .onErrorResume(error -> {
                            outcomes.incrementAndGet(2);
                            return Mono.empty();
                        })
                        .repeat(requests / clients - 1), clients)
                .blockLast(Duration.ofMinutes(1));
        double elapsed = (System.nanoTime() - start) / 1e9;
        return new Result(limiter, requests, clients, outcomes.get(0), outcomes.get(1), outcomes.get(2), elapsed,
                capacity + ratePerSecond * elapsed, counters.snapshot().since(before));
    }
}
