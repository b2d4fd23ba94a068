package dev.tollgate.gateway;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Concurrent closed-loop load from a few threads against one or more gateways, bounded in time
 * and in count. Counts status codes; transport failures count as status 0.
 */
final class LoadRunner implements AutoCloseable {

    private static final int MAX_REQUESTS = 200_000;

    private final ExecutorService threads;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong sent = new AtomicLong();
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();

    private LoadRunner(int threadCount) {
        this.threads = Executors.newFixedThreadPool(threadCount);
    }

    /** Starts {@code threadCount} threads sending {@code method path} with {@code apiKey}, round-robin. */
    static LoadRunner start(List<RunningGateway> gateways, int threadCount, String method, String path,
                            String apiKey) {
        return start(gateways, threadCount, method, path, n -> apiKey);
    }

    /** As above, the {@code n}-th request of a thread carrying the API key {@code apiKeys.apply(n)}. */
    static LoadRunner start(List<RunningGateway> gateways, int threadCount, String method, String path,
                            IntFunction<String> apiKeys) {
        LoadRunner load = new LoadRunner(threadCount);
        for (int t = 0; t < threadCount; t++) {
            int offset = t;
            load.threads.submit(() -> {
                int i = offset;
                while (load.running.get() && load.sent.incrementAndGet() <= MAX_REQUESTS) {
                    RunningGateway gateway = gateways.get(i++ % gateways.size());
                    int status;
                    try {
                        HttpResponse<String> r = gateway.send(method, path, apiKeys.apply(i));
                        status = r.statusCode();
                    } catch (RuntimeException e) {
                        status = 0;
                    }
                    load.statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                }
            });
        }
        return load;
    }

    /** Stops sending and waits for requests in flight; returns status code → count. */
    Map<Integer, Integer> stop(Duration grace) throws InterruptedException {
        running.set(false);
        threads.shutdown();
        threads.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
        Map<Integer, Integer> result = new java.util.TreeMap<>();
        statuses.forEach((status, count) -> result.put(status, count.get()));
        return result;
    }

    int total() {
        return statuses.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    @Override
    public void close() {
        running.set(false);
        threads.shutdownNow();
    }
}
