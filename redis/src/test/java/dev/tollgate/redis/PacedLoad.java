package dev.tollgate.redis;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.BucketStore;
import dev.tollgate.core.Decision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Offers a steady request rate to several store instances at once (like gateway instances behind a
 * load balancer), for a bounded time, and counts every outcome exactly. Each instance gets
 * {@code threadsPerInstance} threads; each thread paces its requests on the real clock (this is load,
 * not waiting for time to pass) and never catches up more than 10 ms of lag at once.
 */
final class PacedLoad {

    /** What a run produced; times are {@link System#nanoTime()} values. */
    record Result(long admitted, long rejected, long errors, long startNanos, long elapsedNanos,
                  long firstRequestNanos, List<Failure> failures, AtomicLongArray admittedPerSlot) {

        /** Admissions decided in {@code [fromSeconds, toSeconds)} after the start, to 10 ms. */
        long admittedBetween(double fromSeconds, double toSeconds) {
            long sum = 0;
            for (int slot = (int) (fromSeconds * 1000 / SLOT_MILLIS);
                 slot < Math.min(admittedPerSlot.length(), (int) (toSeconds * 1000 / SLOT_MILLIS)); slot++) {
                sum += admittedPerSlot.get(slot);
            }
            return sum;
        }

        /** Admissions per second in {@code [fromSeconds, toSeconds)}: the steady rate once the burst is spent. */
        double admittedPerSecond(double fromSeconds, double toSeconds) {
            return admittedBetween(fromSeconds, toSeconds) / (toSeconds - fromSeconds);
        }

        /** What a rule of {@code capacity} and {@code ratePerSecond} allows over the run: {@code C + R × refill time}. */
        double allowedBy(double capacity, double ratePerSecond) {
            return capacity + ratePerSecond * refillSeconds();
        }

        /** The run's figures against a rule, for an assertion's message and the log. */
        String figures(double capacity, double ratePerSecond, double fromSeconds, double toSeconds) {
            double allowed = allowedBy(capacity, ratePerSecond);
            double steady = admittedPerSecond(fromSeconds, toSeconds);
            return String.format(Locale.ROOT, "%.2f s of refill, admitted %d, rejected %d, errors %d; rule allows %.0f "
                            + "(admitted/allowed %.4f); admitted %.0f/s in [%.1f s, %.1f s) for a rule of %.0f/s (%+.2f %%)",
                    refillSeconds(), admitted, rejected, errors, allowed, admitted / allowed, steady, fromSeconds,
                    toSeconds, ratePerSecond, 100 * (steady / ratePerSecond - 1));
        }

        double elapsedSeconds() {
            return elapsedNanos / 1e9;
        }

        /**
         * Seconds from the first request to the end: how long the bucket has been refilling (a
         * bucket that does not exist yet is full and loses its refill to its cap until then).
         */
        double refillSeconds() {
            return (startNanos + elapsedNanos - firstRequestNanos) / 1e9;
        }
    }

    /** A request that failed: when, for which key, and why. */
    record Failure(long atNanos, BucketKey key, Throwable error) {
    }

    private static final long SLOT_MILLIS = 10;

    private PacedLoad() {
    }

    static Result run(List<? extends BucketStore> instances, int threadsPerInstance, double perThreadPerSecond,
                      Duration duration, KeyChooser keys, BucketLimits limits) {
        LongAdder admitted = new LongAdder();
        LongAdder rejected = new LongAdder();
        LongAdder errors = new LongAdder();
        List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
        long intervalNanos = (long) (1e9 / perThreadPerSecond);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        long[] window = new long[2];
        AtomicLong firstRequest = new AtomicLong(Long.MAX_VALUE);
        AtomicLongArray admittedPerSlot = new AtomicLongArray((int) (duration.toMillis() / SLOT_MILLIS) + 1);
        for (int i = 0; i < instances.size(); i++) {
            BucketStore store = instances.get(i);
            for (int t = 0; t < threadsPerInstance; t++) {
                int thread = i * threadsPerInstance + t;
                threads.add(new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    long start = window[0];
                    long end = window[1];
                    long next = start;
                    long n = 0;
                    while (true) {
                        long now = System.nanoTime();
                        if (now >= end) {
                            return;
                        }
                        if (now < next) {
                            LockSupport.parkNanos(next - now);
                            continue;
                        }
                        next = Math.max(next + intervalNanos, now - 10_000_000L);
                        BucketKey key = keys.key(thread, n++);
                        firstRequest.accumulateAndGet(System.nanoTime(), Math::min);
                        try {
                            Decision d = store.tryAcquire(key, limits).toCompletableFuture().join();
                            (d.allowed() ? admitted : rejected).increment();
                            if (d.allowed()) {
                                long slot = (System.nanoTime() - start) / 1_000_000 / SLOT_MILLIS;
                                admittedPerSlot.incrementAndGet((int) Math.min(slot, admittedPerSlot.length() - 1));
                            }
                        } catch (RuntimeException e) {
                            errors.increment();
                            failures.add(new Failure(System.nanoTime(), key, e));
                        }
                    }
                }, "load-" + thread));
            }
        }
        threads.forEach(Thread::start);
        window[0] = System.nanoTime();
        window[1] = window[0] + duration.toNanos();
        go.countDown();
        for (Thread thread : threads) {
            try {
                thread.join(duration.toMillis() + 30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        long elapsed = System.nanoTime() - window[0];
        return new Result(admitted.sum(), rejected.sum(), errors.sum(), window[0], elapsed, firstRequest.get(),
                List.copyOf(failures), admittedPerSlot);
    }

    /** The key request {@code n} of load thread {@code thread} is for. */
    @FunctionalInterface
    interface KeyChooser {
        BucketKey key(int thread, long n);
    }
}
