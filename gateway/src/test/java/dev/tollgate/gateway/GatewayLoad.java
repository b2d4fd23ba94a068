package dev.tollgate.gateway;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * HTTP load on one or more gateways from this JVM, the tests' one load generator, in either shape:
 *
 * <ul>
 *   <li>{@link #closedLoop closed loop}: a few threads, each sending its next request once the last
 *       is answered, as much as the machine allows, bounded in count ({@value #MAX_REQUESTS});</li>
 *   <li>{@link #paced paced} (open loop): requests at a fixed rate whatever the answers (a rejected
 *       client does not slow down, as real ones do not), asynchronous so that a slow answer never
 *       delays the next request, each to the gateway a fixed pattern picks.</li>
 * </ul>
 *
 * Every answer is recorded with the gateway it came from and when its request was sent; a transport
 * failure counts as status 0.
 */
final class GatewayLoad implements AutoCloseable {

    /** One answer: from which gateway (index in the list), sent when (ms since start), status and X-RateLimit-Limit. */
    record Answer(int gateway, long sentMillis, int status, String limit) {
    }

    private static final int MAX_REQUESTS = 200_000;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final ExecutorService senders;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong sent = new AtomicLong();
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final AtomicInteger answered = new AtomicInteger();
    private final long startNanos = System.nanoTime();

    private GatewayLoad(ExecutorService senders) {
        this.senders = senders;
    }

    /** {@code threads} threads sending {@code method path} with {@code apiKey}, round-robin over the gateways. */
    static GatewayLoad closedLoop(List<RunningGateway> gateways, int threads, String method, String path,
                                  String apiKey) {
        return closedLoop(gateways, threads, method, path, n -> apiKey);
    }

    /** As above, the {@code n}-th request of a thread carrying the API key {@code apiKeys.apply(n)}. */
    static GatewayLoad closedLoop(List<RunningGateway> gateways, int threads, String method, String path,
                                  IntFunction<String> apiKeys) {
        GatewayLoad load = new GatewayLoad(Executors.newFixedThreadPool(threads));
        for (int t = 0; t < threads; t++) {
            int offset = t;
            load.senders.submit(() -> {
                int i = offset;
                while (load.running.get() && load.sent.incrementAndGet() <= MAX_REQUESTS) {
                    int target = i++ % gateways.size();
                    long sentMillis = load.elapsedMillis();
                    try {
                        HttpResponse<String> r = gateways.get(target).send(method, path, apiKeys.apply(i));
                        load.answer(new Answer(target, sentMillis, r.statusCode(), limitOf(r)));
                    } catch (RuntimeException e) {
                        load.answer(new Answer(target, sentMillis, 0, ""));
                    }
                }
            });
        }
        return load;
    }

    /**
     * {@code perSecond} requests per second of {@code method path} with {@code apiKey}; request
     * {@code i} goes to {@code gateways.get(pattern[i % pattern.length])}.
     */
    static GatewayLoad paced(List<RunningGateway> gateways, int[] pattern, double perSecond, String method,
                             String path, String apiKey) {
        ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
        GatewayLoad load = new GatewayLoad(pacer);
        pacer.scheduleAtFixedRate(() -> {
            if (!load.running.get()) {
                return;
            }
            long i = load.sent.getAndIncrement();
            int target = pattern[(int) (i % pattern.length)];
            long sentMillis = load.elapsedMillis();
            HttpRequest request = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + gateways.get(target).port() + path))
                    .timeout(Duration.ofSeconds(10))
                    .header("X-Api-Key", apiKey)
                    .method(method, HttpRequest.BodyPublishers.noBody())
                    .build();
            HTTP.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) ->
                    load.answer(error == null
                            ? new Answer(target, sentMillis, response.statusCode(), limitOf(response))
                            : new Answer(target, sentMillis, 0, "")));
        }, 0, Math.round(1e9 / perSecond), TimeUnit.NANOSECONDS);
        return load;
    }

    private void answer(Answer answer) {
        answers.add(answer);
        answered.incrementAndGet();
    }

    private static String limitOf(HttpResponse<?> response) {
        return response.headers().firstValue("X-RateLimit-Limit").orElse("");
    }

    long elapsedMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Answers so far. */
    int total() {
        return answered.get();
    }

    /** Answers so far that match. */
    long count(Predicate<Answer> which) {
        return answers.stream().filter(which).count();
    }

    List<Answer> answers() {
        return List.copyOf(answers);
    }

    /** Stops sending and waits up to {@code grace} for requests in flight; returns status code → count. */
    Map<Integer, Integer> stop(Duration grace) throws InterruptedException {
        running.set(false);
        senders.shutdown();
        senders.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
        Map<Integer, Integer> statuses = new TreeMap<>();
        answers.forEach(a -> statuses.merge(a.status(), 1, Integer::sum));
        return statuses;
    }

    @Override
    public void close() {
        running.set(false);
        senders.shutdownNow();
    }
}
