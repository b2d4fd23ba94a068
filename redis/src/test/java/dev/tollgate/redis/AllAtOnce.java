package dev.tollgate.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests {@code 0 .. n - 1} sent as one burst: {@code threads} threads, released together by one
 * latch, each taking the next request number until none is left, as many gateway instances' traffic
 * arriving at once. For the tests that check a limit holds under contention, where the point is that
 * the requests overlap, not their order.
 */
final class AllAtOnce {

    /** One request; what it throws fails the burst. */
    interface Request {
        void send(int number) throws Exception;
    }

    private AllAtOnce() {
    }

    /** Sends every request and waits for all; fails if any request fails or {@code timeout} passes. */
    static void send(int threads, int requests, Duration timeout, Request request) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger next = new AtomicInteger();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(executor.submit(() -> {
                    go.await();
                    int i;
                    while ((i = next.getAndIncrement()) < requests) {
                        request.send(i);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            executor.shutdownNow();
        }
    }
}
