package dev.tollgate.bench.scenario;

import java.util.Map;

/**
 * One JMH benchmark's score: mean time per operation, with JMH's 99.9% confidence half-width, and
 * the counters the benchmark itself keeps (JMH's secondary results of {@code @AuxCounters} events,
 * summed over the measured iterations; empty for most benchmarks).
 */
public record MicroResult(String benchmark, String params, double score, double error, String unit,
                          Map<String, Double> counters) {

    /** Counter of decisions made, kept by {@code LeaseHitBenchmark.RedisCalls}. */
    public static final String DECISIONS = "decisions";
    /** Counter of calls sent to Redis in the same iterations, kept by {@code LeaseHitBenchmark.RedisCalls}. */
    public static final String REDIS_CALLS = "redisCalls";

    public MicroResult {
        counters = Map.copyOf(counters);
    }

    /** A result without counters. */
    public MicroResult(String benchmark, String params, double score, double error, String unit) {
        this(benchmark, params, score, error, unit, Map.of());
    }

    /** Redis calls per decision over the measured iterations; NaN for a benchmark that does not count them. */
    public double redisCallsPerDecision() {
        Double decisions = counters.get(DECISIONS);
        Double calls = counters.get(REDIS_CALLS);
        if (decisions == null || calls == null || decisions == 0) {
            return Double.NaN;
        }
        return calls / decisions;
    }
}
