package dev.tollgate.spring.limiter;

import dev.tollgate.redis.CallObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Tollgate's own meters. No tenant tag by default: with 100k tenants it would swamp any metrics
 * backend; tenants listed in {@code tollgate.metrics.tenant-tags} are counted once more with one.
 *
 * <ul>
 *   <li>{@code tollgate.decisions} (counter; tags {@code route}, {@code outcome} =
 *       allowed|rejected|shadow-rejected, {@code source} = redis|lease|local-fallback)</li>
 *   <li>{@code tollgate.limit.rejections} (counter; tags {@code route}, {@code limit} = the limit's
 *       name, {@code outcome} = rejected|shadow-rejected, {@code source}): for each request, each
 *       limit that rejected it or, a shadow one, would have. A request that two limits reject counts
 *       once under each; {@code tollgate.decisions} counts it once. Cardinality: routes × limit
 *       names (of plans and rules), never tenants</li>
 *   <li>{@code tollgate.tenant.decisions} (counter; tags {@code tenant}, {@code route},
 *       {@code outcome}): listed tenants only</li>
 *   <li>{@code tollgate.decision.duration} (timer with a percentile histogram, 10 µs to 1 s): how
 *       long each request waited for its decision, from the rule lookup until it was admitted or
 *       rejected, whichever path decided: the time the limiter adds to a request</li>
 *   <li>{@code tollgate.redis.latency} (timer with a percentile histogram, 50 µs to 1 s): Redis
 *       decision round trips that succeeded</li>
 *   <li>{@code tollgate.redis.failures} (counter; tag {@code reason} = timeout|error): decisions
 *       Redis did not make in time, made by the local fallback instead</li>
 *   <li>{@code tollgate.fallback.charges} (counter; tag {@code outcome} = charged|failed): charges of
 *       Redis buckets with what the local fallback admitted</li>
 * </ul>
 */
public final class DecisionMetrics {

    private static final DecisionSource[] SOURCES = DecisionSource.values();
    private static final DecisionOutcome[] OUTCOMES = DecisionOutcome.values();

    private final MeterRegistry registry;
    private final Set<String> taggedTenants;
    private final Timer decisionDuration;
    private final Timer redisLatency;
    private final Counter timeouts;
    private final Counter errors;
    private final Counter chargesMade;
    private final Counter chargesFailed;
    private final ConcurrentHashMap<String, Counter[]> byRoute = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, Counter[]>> rejectionsByRoute =
            new ConcurrentHashMap<>();

    public DecisionMetrics(MeterRegistry registry) {
        this(registry, Set.of());
    }

    public DecisionMetrics(MeterRegistry registry, Set<String> taggedTenants) {
        this.registry = registry;
        this.taggedTenants = Set.copyOf(taggedTenants);
        // Histograms, so that percentiles can be aggregated across instances (p99 in the dashboard).
        this.decisionDuration = Timer.builder("tollgate.decision.duration")
                .description("Time each request waited for its rate-limit decision (the latency the limiter adds)")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(10_000))
                .maximumExpectedValue(Duration.ofSeconds(1))
                .register(registry);
        this.redisLatency = Timer.builder("tollgate.redis.latency")
                .description("Redis calls, from writing to the reply (a call may carry many decisions)")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1).dividedBy(20))
                .maximumExpectedValue(Duration.ofSeconds(1))
                .register(registry);
        this.timeouts = failures("timeout");
        this.errors = failures("error");
        this.chargesMade = charges("charged");
        this.chargesFailed = charges("failed");
    }

    public void decision(String tenant, String route, DecisionOutcome outcome, DecisionSource source) {
        byRoute.computeIfAbsent(route, this::countersFor)[index(source, outcome)].increment();
        if (!taggedTenants.isEmpty() && taggedTenants.contains(tenant)) {
            Counter.builder("tollgate.tenant.decisions")
                    .description("Rate-limit decisions of tenants listed in tollgate.metrics.tenant-tags")
                    .tag("tenant", tenant)
                    .tag("route", route)
                    .tag("outcome", outcome.tag())
                    .register(registry)
                    .increment();
        }
    }

    /**
     * One limit rejected a request on {@code route} or, {@code shadow}, would have: counted in
     * {@code tollgate.limit.rejections}.
     */
    public void limitRejected(String route, String limit, boolean shadow, DecisionSource source) {
        rejectionsByRoute.computeIfAbsent(route, r -> new ConcurrentHashMap<>())
                .computeIfAbsent(limit, l -> rejectionCountersFor(route, l))
                [source.ordinal() * 2 + (shadow ? 1 : 0)].increment();
    }

    /** {@code tollgate.limit.rejections} counted so far for {@code limit}, over all routes and sources. */
    public double limitRejections(String limit, boolean shadow) {
        double total = 0;
        for (ConcurrentHashMap<String, Counter[]> byLimit : rejectionsByRoute.values()) {
            Counter[] counters = byLimit.get(limit);
            if (counters != null) {
                for (DecisionSource source : SOURCES) {
                    total += counters[source.ordinal() * 2 + (shadow ? 1 : 0)].count();
                }
            }
        }
        return total;
    }

    private Counter[] rejectionCountersFor(String route, String limit) {
        Counter[] counters = new Counter[SOURCES.length * 2];
        for (DecisionSource source : SOURCES) {
            for (int shadow = 0; shadow < 2; shadow++) {
                counters[source.ordinal() * 2 + shadow] = Counter.builder("tollgate.limit.rejections")
                        .description("Requests each limit rejected, or (shadow) would have")
                        .tag("route", route)
                        .tag("limit", limit)
                        .tag("outcome", shadow == 1 ? DecisionOutcome.SHADOW_REJECTED.tag()
                                : DecisionOutcome.REJECTED.tag())
                        .tag("source", source.tag())
                        .register(registry);
            }
        }
        return counters;
    }

    /** How long one request waited for its decision, in nanoseconds. */
    public void decisionTook(long nanos) {
        decisionDuration.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Latency of every Redis call (one call may carry many requests' decisions). */
    public CallObserver redisCalls() {
        return new CallObserver() {
            @Override
            public void replied(long nanos) {
                redisLatency.record(nanos, TimeUnit.NANOSECONDS);
            }
        };
    }

    void fallbackCharge(boolean charged) {
        (charged ? chargesMade : chargesFailed).increment();
    }

    void redisFailure(Throwable error) {
        (error instanceof TimeoutException ? timeouts : errors).increment();
    }

    /** Decisions counted so far for {@code source} and {@code outcome}, over all routes. */
    public double count(DecisionSource source, DecisionOutcome outcome) {
        return byRoute.values().stream().mapToDouble(c -> c[index(source, outcome)].count()).sum();
    }

    /** Decisions counted so far for {@code source}, over all routes and outcomes. */
    public double count(DecisionSource source) {
        double total = 0;
        for (DecisionOutcome outcome : OUTCOMES) {
            total += count(source, outcome);
        }
        return total;
    }

    private static int index(DecisionSource source, DecisionOutcome outcome) {
        return source.ordinal() * OUTCOMES.length + outcome.ordinal();
    }

    private Counter[] countersFor(String route) {
        Counter[] counters = new Counter[SOURCES.length * OUTCOMES.length];
        for (DecisionSource source : SOURCES) {
            for (DecisionOutcome outcome : OUTCOMES) {
                counters[index(source, outcome)] = Counter.builder("tollgate.decisions")
                        .description("Rate-limit decisions")
                        .tag("route", route)
                        .tag("outcome", outcome.tag())
                        .tag("source", source.tag())
                        .register(registry);
            }
        }
        return counters;
    }

    private Counter charges(String outcome) {
        return Counter.builder("tollgate.fallback.charges")
                .description("Charges of Redis buckets with what the local fallback admitted, once Redis answers again")
                .tag("outcome", outcome)
                .register(registry);
    }

    private Counter failures(String reason) {
        return Counter.builder("tollgate.redis.failures")
                .description("Redis decisions that failed or timed out and fell back to the local limiter")
                .tag("reason", reason)
                .register(registry);
    }
}
