package dev.tollgate.bench.load;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import reactor.core.publisher.Sinks;

/**
 * Sends requests at a fixed rate on a fixed timeline, whatever the target does (open loop).
 *
 * <p>Request {@code i} is due at {@code start + i / rate}. Its latency is measured from that due
 * time, not from when it was actually sent: if the target (or this generator) stalls, the requests
 * that should have gone out meanwhile are charged the stall, as real clients arriving on their own
 * schedule would be. This is what avoids coordinated omission. The generator's own lateness is
 * recorded separately ({@link LoadResult#sendLagMicros()}) to show it was not the bottleneck.
 *
 * <p>Bounded: a run sends exactly {@code rate × duration} requests, then waits at most
 * {@code drainTimeout} for the last answers; requests still unanswered then are cancelled (so they
 * cannot spill into the next run) and count as errors.
 */
public final class OpenLoopLoad {

    private final List<HttpTarget> targets;
    private final RequestMix mix;

    public OpenLoopLoad(HttpTarget target, RequestMix mix) {
        this(List.of(target), mix);
    }

    /** Load spread round-robin over several targets (instances of one cluster). */
    public OpenLoopLoad(List<HttpTarget> targets, RequestMix mix) {
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("no target");
        }
        this.targets = List.copyOf(targets);
        this.mix = mix;
    }

    public LoadResult run(double ratePerSecond, Duration duration, Duration drainTimeout) {
        long count = Math.max(1, Math.round(ratePerSecond * duration.toNanos() / 1e9));
        double periodNanos = 1e9 / ratePerSecond;
        Recorder latency = new Recorder(3);
        Histogram sendLag = new Histogram(3);
        Outcomes outcomes = new Outcomes();
        AtomicLong lastResponseNanos = new AtomicLong();
        AtomicLong lastOkNanos = new AtomicLong();
        CountDownLatch done = new CountDownLatch((int) count);
        Sinks.One<Boolean> abort = Sinks.one();

        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (long i = 0; i < count; i++) {
            long due = start + (long) (i * periodNanos);
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                // parkNanos can oversleep by tens of microseconds; that lateness is charged to the
                // request's latency (it is measured from `due`) and shows in sendLag.
                LockSupport.parkNanos(wait);
            }
            sendLag.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
            targets.get((int) (i % targets.size())).get(mix.path(), mix.apiKey(i)).takeUntilOther(abort.asMono()).subscribe(
                    status -> {
                        long now = System.nanoTime();
                        latency.recordValue(Math.max(0, (now - due) / 1000));
                        if (outcomes.response(status)) {
                            lastOkNanos.accumulateAndGet(now, Math::max);
                        }
                        lastResponseNanos.accumulateAndGet(now, Math::max);
                        done.countDown();
                    },
                    error -> {
                        outcomes.error();
                        done.countDown();
                    });
        }
        long lastDue = start + (long) ((count - 1) * periodNanos);
        try {
            done.await(Math.max(0, lastDue - System.nanoTime()) + drainTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during a load run", e);
        }
        long unanswered = done.getCount();
        abort.tryEmitValue(true);
        long end = Math.max(lastResponseNanos.get(), lastDue);
        double seconds = (end - start) / 1e9;
        String name = targets.stream().map(HttpTarget::name).collect(Collectors.joining("+"));
        return new LoadResult(name, ratePerSecond, count, outcomes.ok.sum(), outcomes.limited.sum(),
                outcomes.other.sum(), outcomes.errors.sum() + unanswered, seconds, Math.max(0, lastOkNanos.get() - start) / 1e9, latency.getIntervalHistogram(), sendLag);
    }
}
