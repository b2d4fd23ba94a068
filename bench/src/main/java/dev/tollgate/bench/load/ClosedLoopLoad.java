package dev.tollgate.bench.load;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
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
        AtomicLong sequence = new AtomicLong();
        Outcomes outcomes = new Outcomes();
        Recorder latency = new Recorder(3);
        long measureFrom = System.nanoTime() + rampUp.toNanos();
        long stopAt = measureFrom + measured.toNanos();

        Flux.range(0, concurrency)
                .flatMap(lane -> oneAfterAnother(sequence, stopAt, measureFrom, latency, outcomes), concurrency)
                .blockLast(rampUp.plus(measured).plusSeconds(30));

        double seconds = measured.toNanos() / 1e9;
        return new LoadResult(target.name(), 0, sequence.get(), outcomes.ok.sum(), outcomes.limited.sum(),
                outcomes.other.sum(), outcomes.errors.sum(), seconds, Double.NaN, latency.getIntervalHistogram(), new Histogram(3));
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
