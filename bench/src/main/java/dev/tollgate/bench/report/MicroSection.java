package dev.tollgate.bench.report;

import dev.tollgate.bench.scenario.MicroBenchmarks;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The JMH micro-benchmarks; template {@code report/micro.mustache}. */
record MicroSection(int warmUp, int measurement, List<Row> rows) {

    static final String DIRECTORY_LOAD = "DirectoryLoadBenchmark.fullLoad";

    /** What each benchmark measures, as the report says it. */
    private static final Map<String, String> WHAT = Map.ofEntries(
            Map.entry("LocalDecisionBenchmark.localBucketStoreOneKey", "local bucket store, one hot key"),
            Map.entry("LocalDecisionBenchmark.localBucketStoreManyKeys", "local bucket store, 16,384 keys"),
            Map.entry("LocalDecisionBenchmark.fallbackLimiterManyKeys", "fallback limiter (1/3 share), 16,384 keys"),
            Map.entry(LeaseHitFigures.HIT,
                    "leasing store, one hot key, decision from a lease already held (real Redis lease source)"),
            Map.entry(LeaseHitFigures.LEASING_OFF,
                    "the same store with leasing off: one EVALSHA round trip per decision"),
            Map.entry("KeyEncodingBenchmark.plainIds", "Redis key, ids needing no escape"),
            Map.entry("KeyEncodingBenchmark.idsNeedingEscapes", "Redis key, ids with reserved and non-ASCII characters"),
            Map.entry("RedisRoundTripBenchmark.ping", "Lettuce round trip to Redis: PING"),
            Map.entry("RedisRoundTripBenchmark.tryAcquire", "Lettuce round trip: RedisBucketStore.tryAcquire (EVALSHA)"),
            Map.entry("RuleLoadBenchmark.buildRuleSet", "RuleSet of 100,000 rules built in memory"),
            Map.entry(DIRECTORY_LOAD,
                    "full load from PostgreSQL, DirectoryRepository to snapshot: `rules`, 100,000 rules and 100,000"
                            + " API keys; `plans`, 100,000 tenants on 3 plans (no rule row) and their 100,000 API keys"));

    /** One benchmark: name (and parameters), what it measures, its mean and JMH's error. */
    record Row(String benchmark, String params, String what, String mean, String error) {
    }

    static MicroSection of(Figures f) {
        return new MicroSection(MicroBenchmarks.WARMUP_ITERATIONS, MicroBenchmarks.MEASUREMENT_ITERATIONS,
                f.results().micro().stream().map(m -> new Row(m.benchmark(),
                        m.params().isEmpty() ? "" : " (" + m.params() + ")",
                        WHAT.getOrDefault(m.benchmark(), "")
                                + (m.counters().isEmpty() ? "" : "; " + LeaseHitFigures.calls(m) + " (measured iterations)"),
                        String.format(Locale.ROOT, "%.3f %s", m.score(), m.unit()),
                        String.format(Locale.ROOT, "%.3f", m.error()))).toList());
    }
}
