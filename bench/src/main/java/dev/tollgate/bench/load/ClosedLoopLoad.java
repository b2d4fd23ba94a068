package dev.tollgate.bench.load;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Keeps a fixed number of requests in flight for a fixed time (closed loop): each answer sends the
 * next request. It finds the most the target completes per second when never idle, its maximum
 * throughput. Latencies here are service times under saturation, not what clients at a given rate
 * would see; {@link OpenLoopLoad} measures those.
 *
 * <p>Only responses that arrive after a ramp-up are counted, so connection setup and the first
 * burst do not count.
 */
public final class ClosedLoopLoad {

    private final HttpTarget target;
    private final RequestMix mix;

    public ClosedLoopLoad(HttpTarget target, RequestMix mix) {
        this.target = target;
        this.mix = mix;
    }

    public LoadResult run(int concurrency, Duration rampUp, Duration measured) {
        return start(concurrency, rampUp, measured).result();
    }

    /**
     * Starts a run and returns at once, so that other counters can be read at the edges of its
     * measured window ({@link Window#awaitMeasuredStart()}, {@link Window#awaitMeasuredEnd()}).
     */
    public Window start(int concurrency, Duration rampUp, Duration measured) {
        AtomicLong sequence = new AtomicLong();
        Outcomes outcomes = new Outcomes();
        Recorder latency = new Recorder(3);
        long measureFrom = System.nanoTime() + rampUp.toNanos();
        long stopAt = measureFrom + measured.toNanos();
        CompletableFuture<Void> done = Flux.range(0, concurrency)
                .flatMap(lane -> oneAfterAnother(sequence, stopAt, measureFrom, latency, outcomes), concurrency)
                .then()
                .timeout(rampUp.plus(measured).plusSeconds(30))
                .toFuture();
        return new Window(measureFrom, stopAt, () -> {
            done.join();
            double seconds = measured.toNanos() / 1e9;
            return new LoadResult(target.name(), 0, sequence.get(), outcomes.ok.sum(), outcomes.limited.sum(),
                    outcomes.other.sum(), outcomes.errors.sum(), seconds, Double.NaN, latency.getIntervalHistogram(),
                    new Histogram(3));
        });
    }

    /** A run under way: its measured window, and its result once it has ended. */
    public static final class Window {

        private final long measureFrom;
        private final long stopAt;
        private final Supplier<LoadResult> result;

        Window(long measureFrom, long stopAt, Supplier<LoadResult> result) {
            this.measureFrom = measureFrom;
            this.stopAt = stopAt;
            this.result = result;
        }

        /** Returns once the ramp-up is over and responses count. */
        public void awaitMeasuredStart() {
            sleepUntil(measureFrom);
        }

        /** Returns once the measured window is over. */
        public void awaitMeasuredEnd() {
            sleepUntil(stopAt);
        }

        /** Waits for the run to end (its last requests answered) and returns what it measured. */
        public LoadResult result() {
            return result.get();
        }

        private static void sleepUntil(long nanoTime) {
            long wait = nanoTime - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private Mono<Integer> oneAfterAnother(AtomicLong sequence, long stopAt, long measureFrom, Recorder latency,
                                          Outcomes outcomes) {
        return Mono.defer(() -> {
                    long i = sequence.getAndIncrement();
                    long sentAt = System.nanoTime();
                    return target.get(mix.path(), mix.apiKey(i))
                            .doOnNext(status -> {
                                long now = System.nanoTime();
                                if (now < measureFrom || now > stopAt) {
                                    return;
                                }
                                latency.recordValue((now - sentAt) / 1000);
                                outcomes.response(status);
                            })
                            .onErrorResume(error -> {
                                outcomes.error();
                                return Mono.just(-1);
                            });
                })
                .repeat(() -> System.nanoTime() < stopAt)
                .then(Mono.just(0));
    }
}
