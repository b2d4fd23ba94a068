package dev.tollgate.gateway.limiter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Tollgate's own meters. No tenant tag: with 100k tenants it would swamp any metrics backend.
 *
 * <ul>
 *   <li>{@code tollgate.decisions} (counter; tags {@code route}, {@code outcome} = allowed|rejected,
 *       {@code source} = redis|local-fallback)</li>
 *   <li>{@code tollgate.redis.latency} (timer): Redis decision round trips that succeeded</li>
 *   <li>{@code tollgate.redis.failures} (counter; tag {@code reason} = timeout|error)</li>
 * </ul>
 */
public final class DecisionMetrics {

    private final MeterRegistry registry;
    private final Timer redisLatency;
    private final Counter timeouts;
    private final Counter errors;
    private final ConcurrentHashMap<String, Counter[]> decisionsByRoute = new ConcurrentHashMap<>();

    public DecisionMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.redisLatency = Timer.builder("tollgate.redis.latency")
                .description("Round trip of successful Redis decisions")
                .register(registry);
        this.timeouts = failures("timeout");
        this.errors = failures("error");
    }

    public void decision(String route, boolean allowed, DecisionSource source) {
        Counter[] counters = decisionsByRoute.computeIfAbsent(route, this::countersFor);
        counters[source.ordinal() * 2 + (allowed ? 0 : 1)].increment();
    }

    void redisLatency(long nanos) {
        redisLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    void redisFailure(Throwable error) {
        (error instanceof TimeoutException ? timeouts : errors).increment();
    }

    /** Decisions counted so far for {@code source} and {@code outcome}, over all routes. */
    public double count(DecisionSource source, boolean allowed) {
        return decisionsByRoute.values().stream()
                .mapToDouble(c -> c[source.ordinal() * 2 + (allowed ? 0 : 1)].count())
                .sum();
    }

    private Counter[] countersFor(String route) {
        DecisionSource[] sources = DecisionSource.values();
        Counter[] counters = new Counter[sources.length * 2];
        for (DecisionSource source : sources) {
            counters[source.ordinal() * 2] = decisionCounter(route, "allowed", source);
            counters[source.ordinal() * 2 + 1] = decisionCounter(route, "rejected", source);
        }
        return counters;
    }

    private Counter decisionCounter(String route, String outcome, DecisionSource source) {
        return Counter.builder("tollgate.decisions")
                .description("Rate-limit decisions")
                .tag("route", route)
                .tag("outcome", outcome)
                .tag("source", source.tag())
                .register(registry);
    }

    private Counter failures(String reason) {
        return Counter.builder("tollgate.redis.failures")
                .description("Redis decisions that failed or timed out and fell back to the local limiter")
                .tag("reason", reason)
                .register(registry);
    }
}
