package dev.tollgate.gateway;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Open-loop load: requests sent at a fixed pace whatever the answers (a rejected client does not
 * slow down, as real ones do not), each to the gateway a fixed pattern picks, every answer recorded
 * with when it was sent. Asynchronous, so a slow answer never delays the next request.
 */
final class PacedLoad implements AutoCloseable {

    /** One answer: to which gateway (index in the list), sent when (ms since start), status and X-RateLimit-Limit. */
    record Answer(int gateway, long sentMillis, int status, String limit) {
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final long startNanos = System.nanoTime();
    private final AtomicLong sent = new AtomicLong();

    private PacedLoad() {
    }

    /**
     * Sends {@code perSecond} requests per second of {@code method path} with {@code apiKey}; request
     * {@code i} goes to {@code gateways.get(pattern[i % pattern.length])}.
     */
    static PacedLoad start(List<RunningGateway> gateways, int[] pattern, double perSecond, String method, String path,
                           String apiKey) {
        PacedLoad load = new PacedLoad();
        long periodNanos = Math.round(1e9 / perSecond);
        load.pacer.scheduleAtFixedRate(() -> {
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
                    load.answers.add(new Answer(target, sentMillis, error == null ? response.statusCode() : 0,
                            error == null ? response.headers().firstValue("X-RateLimit-Limit").orElse("") : "")));
        }, 0, periodNanos, TimeUnit.NANOSECONDS);
        return load;
    }

    long elapsedMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Answers so far that match. */
    long count(Predicate<Answer> which) {
        return answers.stream().filter(which).count();
    }

    List<Answer> answers() {
        return List.copyOf(answers);
    }

    @Override
    public void close() {
        pacer.shutdownNow();
    }
}
