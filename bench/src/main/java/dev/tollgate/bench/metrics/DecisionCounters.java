package dev.tollgate.bench.metrics;

import dev.tollgate.bench.load.HttpTarget;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the decision counters of Tollgate instances from their Prometheus endpoint (on the gateway
 * port in the benchmark). {@link #snapshot()} before a run and {@link Snapshot#since} after it give
 * the run's {@link DecisionSplit}; {@link Snapshot#timesSince} its {@link TimeHistogram}.
 */
public final class DecisionCounters {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final List<HttpTarget> instances;

    public DecisionCounters(List<HttpTarget> instances) {
        this.instances = List.copyOf(instances);
    }

    /** For instances that export no Tollgate counters (the built-in limiter): every split is {@link DecisionSplit#NONE}. */
    public static DecisionCounters none() {
        return new DecisionCounters(List.of());
    }

    /** Every instance's counters, as they are now. */
    public Snapshot snapshot() {
        List<DecisionSplit> each = new ArrayList<>();
        List<TimeHistogram> decisionTimes = new ArrayList<>();
        List<TimeHistogram> redisCallTimes = new ArrayList<>();
        for (HttpTarget instance : instances) {
            String exposition = fetch(instance.baseUrl() + "/actuator/prometheus");
            each.add(parse(exposition));
            decisionTimes.add(TimeHistogram.parse(exposition, TimeHistogram.DECISION));
            redisCallTimes.add(TimeHistogram.parse(exposition, TimeHistogram.REDIS_CALL));
        }
        return new Snapshot(each, decisionTimes, redisCallTimes);
    }

    /** Counters of every instance at one moment. */
    public final class Snapshot {
        private final List<DecisionSplit> each;
        private final List<TimeHistogram> decisionTimes;
        private final List<TimeHistogram> redisCallTimes;

        private Snapshot(List<DecisionSplit> each, List<TimeHistogram> decisionTimes,
                         List<TimeHistogram> redisCallTimes) {
            this.each = each;
            this.decisionTimes = decisionTimes;
            this.redisCallTimes = redisCallTimes;
        }

        /** The decision times the instances recorded between {@code before} and this snapshot, merged. */
        public TimeHistogram timesSince(Snapshot before) {
            return merged(decisionTimes, before.decisionTimes);
        }

        /** The Redis call times (write to reply) recorded between {@code before} and this snapshot, merged. */
        public TimeHistogram redisCallTimesSince(Snapshot before) {
            return merged(redisCallTimes, before.redisCallTimes);
        }

        private static TimeHistogram merged(List<TimeHistogram> now, List<TimeHistogram> then) {
            TimeHistogram sum = TimeHistogram.NONE;
            for (int i = 0; i < now.size(); i++) {
                sum = sum.plus(now.get(i).minus(then.get(i)));
            }
            return sum;
        }

        /** What the instances counted between {@code before} and this snapshot, summed. */
        public DecisionSplit since(Snapshot before) {
            DecisionSplit sum = DecisionSplit.NONE;
            for (int i = 0; i < each.size(); i++) {
                sum = sum.plus(each.get(i).minus(before.each.get(i)));
            }
            return sum;
        }
    }

    /** The counters of one instance's Prometheus text exposition; absent counters count 0. */
    static DecisionSplit parse(String exposition) {
        long redis = 0;
        long lease = 0;
        long fallback = 0;
        long failures = 0;
        long leaseCalls = 0;
        long leaseReturns = 0;
        for (String line : exposition.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            long value = (long) Double.parseDouble(line.substring(space + 1));
            if (series.startsWith("tollgate_decisions_total{")) {
                if (series.contains("source=\"redis\"")) {
                    redis += value;
                } else if (series.contains("source=\"lease\"")) {
                    lease += value;
                } else if (series.contains("source=\"local-fallback\"")) {
                    fallback += value;
                }
            } else if (series.startsWith("tollgate_redis_failures_total")) {
                failures += value;
            } else if (series.equals("tollgate_leases_calls_total")) {
                leaseCalls += value;
            } else if (series.equals("tollgate_leases_returns_total")) {
                leaseReturns += value;
            }
        }
        return new DecisionSplit(redis, lease, fallback, failures, leaseCalls, leaseReturns);
    }

    static String fetch(String url) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(url + " answered " + response.statusCode());
            }
            return response.body();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + url, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading " + url, e);
        }
    }
}
