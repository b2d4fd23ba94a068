package dev.tollgate.bench.suite;

import java.time.Duration;
import java.util.List;

/**
 * How much the suite measures: rates, repetitions, run lengths, sizes. {@link #standard()} is
 * what {@code bench/run.sh} runs; it is sized to finish in about 20 minutes on a 2-core machine.
 *
 * @param rateShares            open-loop request rates of the latency runs, as shares of the
 *                              no-limiter gateway's maximum throughput measured in the same run
 * @param headlineShare         the share whose rate the latency target is set at (half the capacity)
 * @param minRounds             rounds of latency runs always made (a round runs every target at every rate)
 * @param maxRounds             rounds made if time allows
 * @param lastRoundStart        time into the suite after which no further round (beyond the minimum) starts
 * @param latencyRun            length of one latency run
 * @param drain                 longest wait for the last answers of a run
 * @param warmUpRequests        requests every gateway serves (closed loop) before anything is measured
 * @param warmUpMaxTime         the longest a gateway's warm-up may take before the speed runs (the
 *                              direct target, with no gateway to compile, and the accuracy runs'
 *                              gateways, which count admissions rather than speed, get a fifth of it)
 * @param latencyTenants        API keys the latency and saturation runs rotate over (cold tenants)
 * @param saturationRepetitions rounds of saturation runs (every target, every mix)
 * @param saturationConcurrency requests kept in flight by a saturation run
 * @param saturationRampUp      unmeasured start of a saturation run
 * @param saturationRun         measured part of a saturation run
 * @param accuracyInstances     gateway instances sharing one Redis in the accuracy run
 * @param builtInAccuracyBy     time into the suite after which the built-in limiter's accuracy run
 *                              (two more JVMs to start) is left out to stay within the time budget
 * @param accuracyRate          total request rate of the accuracy run (all from one tenant)
 * @param accuracyRun           length of the accuracy run
 * @param memoryTenants         tenants whose buckets fill Redis in the memory run
 * @param memoryRoutes          routes per tenant in the memory run
 * @param hotKeyRate            total request rate of the hot-key run (one tenant, within its limit)
 * @param hotKeyRun             length of the hot-key run
 * @param burstRequests         requests of the parallel-burst check, all on one bucket
 * @param burstClients          concurrent clients sending them
 * @param costTenants           tenant counts of the cost curve (at one instance)
 * @param costInstances         simulated instance counts of the cost curve (at the first tenant count)
 * @param costRate              total decisions per second offered at each point of the cost curve
 * @param costRun               length of each point of the cost curve
 * @param floodVictimRate       the well-keyed client's request rate in the bogus-key flood runs
 * @param floodConnections      the flood's connections, each with one request always in flight
 * @param floodRun              length of one flood run (the client's schedule; the flood ramps up before it)
 * @param floodRounds           rounds of flood runs (each gateway with and without the flood)
 */
public record SuitePlan(List<Double> rateShares, double headlineShare, int minRounds, int maxRounds,
                        Duration lastRoundStart, Duration latencyRun, Duration drain,
                        long warmUpRequests, Duration warmUpMaxTime, int latencyTenants,
                        int saturationRepetitions, int saturationConcurrency, Duration saturationRampUp,
                        Duration saturationRun, int accuracyInstances, Duration builtInAccuracyBy,
                        double accuracyRate, Duration accuracyRun,
                        int memoryTenants, List<String> memoryRoutes,
                        double hotKeyRate, Duration hotKeyRun, int burstRequests, int burstClients,
                        List<Integer> costTenants, List<Integer> costInstances, double costRate, Duration costRun,
                        double floodVictimRate, int floodConnections, Duration floodRun, int floodRounds) {

    public static SuitePlan standard() {
        return new SuitePlan(List.of(0.1, 0.25, 0.5), 0.5, 3, 5, Duration.ofSeconds(420),
                Duration.ofSeconds(3), Duration.ofSeconds(3),
                40_000, Duration.ofSeconds(180), 1000,
                5, 64, Duration.ofSeconds(1), Duration.ofSeconds(3),
                3, Duration.ofSeconds(600), 600, Duration.ofSeconds(6),
                100_000, List.of("create-order", "list-orders", "catalog"),
                1500, Duration.ofSeconds(4), 1000, 100,
                List.of(1_000, 10_000, 100_000), List.of(1, 5, 20), 4000, Duration.ofSeconds(3),
                500, 1000, Duration.ofSeconds(5), 3);
    }

    /** Every step with tiny sizes: checks the suite works end to end; its figures mean nothing. */
    public static SuitePlan quick() {
        return new SuitePlan(List.of(0.1, 0.5), 0.5, 1, 1, Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(2),
                2_000, Duration.ofSeconds(4), 100,
                1, 16, Duration.ofMillis(500), Duration.ofSeconds(1),
                2, Duration.ofSeconds(600), 300, Duration.ofSeconds(2),
                1_000, List.of("create-order", "list-orders", "catalog"),
                300, Duration.ofSeconds(1), 200, 20,
                List.of(100, 1_000), List.of(1, 4), 500, Duration.ofSeconds(1),
                200, 50, Duration.ofSeconds(2), 1);
    }
}
