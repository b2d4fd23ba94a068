package dev.tollgate.bench;

import java.time.Duration;
import java.util.List;

/**
 * How much the suite measures: rates, repetitions, run lengths, sizes. {@link #standard()} is
 * what {@code bench/run.sh} runs; it is sized to finish within 10 minutes on a 2-core machine.
 *
 * @param rates                 open-loop request rates of the latency runs, per second
 * @param minRounds             rounds of latency runs always made (a round runs every target at every rate)
 * @param maxRounds             rounds made if time allows
 * @param lastRoundStart        time into the suite after which no further round (beyond the minimum) starts
 * @param latencyRun            length of one latency run
 * @param drain                 longest wait for the last answers of a run
 * @param warmUpRequests        requests every gateway serves (closed loop) before anything is measured
 * @param warmUpMaxTime         the longest a gateway's warm-up may take (the direct target, with no
 *                              gateway to compile, gets a fifth of it)
 * @param latencyTenants        API keys the latency and throughput runs rotate over
 * @param throughputRepetitions rounds of throughput runs
 * @param throughputConcurrency requests kept in flight by a throughput run
 * @param throughputRampUp      unmeasured start of a throughput run
 * @param throughputRun         measured part of a throughput run
 * @param accuracyInstances     gateway instances sharing one Redis in the accuracy run
 * @param builtInAccuracyBy     time into the suite after which the built-in limiter's accuracy run
 *                              (two more JVMs to start) is left out to stay within the time budget
 * @param accuracyRate          total request rate of the accuracy run (all from one tenant)
 * @param accuracyRun           length of the accuracy run
 * @param memoryTenants         tenants whose buckets fill Redis in the memory run
 * @param memoryRoutes          routes per tenant in the memory run
 * @param headlineRate          the rate the latency target is set at
 * @param hotKeyRate            total request rate of the hot-key run (one tenant, within its limit)
 * @param hotKeyRun             length of the hot-key run
 */
public record SuitePlan(List<Double> rates, int minRounds, int maxRounds, Duration lastRoundStart,
                        Duration latencyRun, Duration drain,
                        long warmUpRequests, Duration warmUpMaxTime, int latencyTenants,
                        int throughputRepetitions, int throughputConcurrency, Duration throughputRampUp,
                        Duration throughputRun, int accuracyInstances, Duration builtInAccuracyBy,
                        double accuracyRate, Duration accuracyRun,
                        int memoryTenants, List<String> memoryRoutes, double headlineRate,
                        double hotKeyRate, Duration hotKeyRun) {

    public static SuitePlan standard() {
        return new SuitePlan(List.of(500.0, 1000.0, 2000.0), 3, 5, Duration.ofSeconds(300),
                Duration.ofSeconds(3), Duration.ofSeconds(3),
                40_000, Duration.ofSeconds(25), 1000,
                3, 64, Duration.ofSeconds(1), Duration.ofSeconds(3),
                3, Duration.ofSeconds(440), 600, Duration.ofSeconds(6),
                100_000, List.of("create-order", "list-orders", "catalog"), 2000,
                1500, Duration.ofSeconds(4));
    }

    /** Every step with tiny sizes: checks the suite works end to end; its figures mean nothing. */
    public static SuitePlan quick() {
        return new SuitePlan(List.of(500.0, 2000.0), 1, 1, Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(2),
                2_000, Duration.ofSeconds(4), 100,
                1, 16, Duration.ofMillis(500), Duration.ofSeconds(1),
                2, Duration.ofSeconds(600), 300, Duration.ofSeconds(2),
                1_000, List.of("create-order", "list-orders", "catalog"), 2000,
                300, Duration.ofSeconds(1));
    }
}
