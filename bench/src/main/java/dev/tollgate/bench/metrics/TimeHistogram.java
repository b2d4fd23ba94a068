package dev.tollgate.bench.metrics;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A timer's histogram as Tollgate exports it to Prometheus, as cumulative bucket counts by upper
 * bound in seconds: {@link #DECISION} ({@code tollgate_decision_duration_seconds}, how long each
 * request waited for its rate-limit decision, timed inside the gateway) or {@link #REDIS_CALL}
 * ({@code tollgate_redis_latency_seconds}, a Redis call from being written to its reply being
 * read). The difference of two readings is one run's histogram.
 *
 * <p>A percentile read from it is the upper bound of the bucket it falls in, so it overstates the
 * true value by at most that bucket's width: Micrometer's buckets grow by about a third from one to
 * the next above 10 µs, so by at most about 33 %.
 */
public record TimeHistogram(NavigableMap<Double, Long> cumulative) {

    /** The decision timer's histogram series. */
    public static final String DECISION = "tollgate_decision_duration_seconds";
    /** The Redis call timer's histogram series. */
    public static final String REDIS_CALL = "tollgate_redis_latency_seconds";

    /** No histogram: the limiter exports none (not Tollgate). */
    public static final TimeHistogram NONE = new TimeHistogram(new TreeMap<>());

    public TimeHistogram {
        cumulative = java.util.Collections.unmodifiableNavigableMap(new TreeMap<>(cumulative));
    }

    /** The decisions timed. */
    public long count() {
        return cumulative.isEmpty() ? 0 : cumulative.lastEntry().getValue();
    }

    /**
     * The upper bound, in milliseconds, of the bucket that holds the {@code percentile}-th
     * decision time (NaN without decisions); at most the bucket's width above the true value.
     */
    public double percentileUpperBoundMillis(double percentile) {
        long total = count();
        if (total == 0) {
            return Double.NaN;
        }
        // The rank of that decision; the small subtraction absorbs binary rounding (99.9 % of 1000
        // computes as 999.0000000000001, which must still be the 999th).
        double rank = Math.ceil(percentile / 100 * total - 1e-6);
        for (Map.Entry<Double, Long> bucket : cumulative.entrySet()) {
            if (bucket.getValue() >= rank) {
                return bucket.getKey() * 1000;
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    /** The buckets of {@code metric} in one instance's Prometheus text exposition; none if absent. */
    static TimeHistogram parse(String exposition, String metric) {
        String bucket = metric + "_bucket{";
        TreeMap<Double, Long> buckets = new TreeMap<>();
        for (String line : exposition.split("\n")) {
            if (!line.startsWith(bucket)) {
                continue;
            }
            int le = line.indexOf("le=\"");
            int end = line.indexOf('"', le + 4);
            String bound = line.substring(le + 4, end);
            double upper = bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
            long count = (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            buckets.merge(upper, count, Long::sum);
        }
        return new TimeHistogram(buckets);
    }

    TimeHistogram minus(TimeHistogram before) {
        TreeMap<Double, Long> out = new TreeMap<>(cumulative);
        before.cumulative.forEach((bound, count) -> out.merge(bound, -count, Long::sum));
        return new TimeHistogram(out);
    }

    TimeHistogram plus(TimeHistogram other) {
        TreeMap<Double, Long> out = new TreeMap<>(cumulative);
        other.cumulative.forEach((bound, count) -> out.merge(bound, count, Long::sum));
        return new TimeHistogram(out);
    }
}
