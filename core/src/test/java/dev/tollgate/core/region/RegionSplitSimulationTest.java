package dev.tollgate.core.region;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.LocalBucketStore;
import dev.tollgate.core.ManualClock;
import dev.tollgate.core.RandomizedCheck;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Several regions, each with its own in-memory buckets, splitting one rule by shares that a
 * rebalancer moves as random traffic shifts between them — on a manual clock. Whatever the traffic,
 * the regions together never admit more than {@code C + R × T} over any window of {@code T} seconds,
 * plus, for each change of shares the window overlaps while regions disagree about it, at most
 * {@code δ × (C + R × Δ)} ({@code δ}: the sum of the raised shares' increases, {@code Δ}: how long the
 * regions took to apply it), the bound stated in {@code docs/multi-region.md}.
 */
class RegionSplitSimulationTest {

    private static final RuleScope BUCKET = new RuleScope("shop", "orders");
    private static final long MIN_SHARE_PPM = 50_000;

    /** One change of shares: when the first region applied it, and what it may add. */
    private record Change(long atMillis, double allowanceTokens) {
    }

    /** What one simulated run showed: the fullest window (share of its bound) and the changes made. */
    private record Outcome(double tightest, int changes) {
    }

    @Test
    void regionsTogetherNeverAdmitMoreThanTheRulePlusTheChangeBound() {
        List<Outcome> outcomes = new ArrayList<>();
        RandomizedCheck.forAll(12, random -> outcomes.add(simulate(random, true)));
        assertNotVacuous(outcomes);
    }

    @Test
    void withSimultaneousChangesTheRegionsNeverAdmitMoreThanTheRule() {
        List<Outcome> outcomes = new ArrayList<>();
        RandomizedCheck.forAll(12, random -> outcomes.add(simulate(random, false)));
        assertNotVacuous(outcomes);
    }

    /** The runs moved shares, and some window came close to its bound: the check had something to check. */
    private static void assertNotVacuous(List<Outcome> outcomes) {
        assertThat(outcomes.stream().mapToInt(Outcome::changes).sum()).isGreaterThan(outcomes.size());
        assertThat(outcomes.stream().mapToDouble(Outcome::tightest).max().orElse(0)).isGreaterThan(0.9);
    }

    private static Outcome simulate(SplittableRandom random, boolean delayedApply) {
        ManualClock clock = new ManualClock();
        List<String> regions = random.nextBoolean() ? List.of("eu", "us") : List.of("ap", "eu", "us");
        RegionShares defaults = randomShares(random, regions);
        long capacity = random.nextLong(20, 401);
        double rate = random.nextInt(5_000, 200_001) / 1000d;
        RateLimitRule rule = RateLimitRule.of(capacity, rate);
        long interval = random.nextLong(500, 5001);
        long maxDelay = delayedApply ? random.nextLong(1, interval / 2) : 0;
        ShareRebalancer rebalancer = new ShareRebalancer(new RebalancerSettings(defaults, (int) MIN_SHARE_PPM,
                0.1 + random.nextDouble() * 0.9, 0.2 + random.nextDouble() * 0.8));
        ReportFilter reports = new ReportFilter(rebalancer.settings().nearLimit());

        Map<String, LocalBucketStore> stores = new HashMap<>();
        Map<String, DemandMeter> meters = new HashMap<>();
        Map<String, ShareTable> applied = new HashMap<>();
        Map<String, RegionalRuleBook> books = new HashMap<>();
        for (String region : regions) {
            stores.put(region, new LocalBucketStore(clock));
            meters.put(region, new DemandMeter(clock));
            applied.put(region, ShareTable.defaultsOnly(defaults));
            books.put(region, new RegionalRuleBook((t, r) -> rule, region, () -> applied.get(region)));
        }
        Map<RuleScope, ShareRebalancer.Tracked> kept = new HashMap<>();
        // Pending applications: region → (time to apply, table).
        Map<String, TreeMap<Long, ShareTable>> pending = new HashMap<>();
        regions.forEach(region -> pending.put(region, new TreeMap<>()));
        List<Change> changes = new ArrayList<>();
        TreeMap<Long, Long> admittedMicrosAt = new TreeMap<>();

        long end = 30_000;
        long nextRun = interval;
        long phaseEnd = 0;
        double offeredPerSecond = 0;
        Map<String, Double> split = new LinkedHashMap<>();
        while (clock.millis() < end) {
            long now = clock.millis();
            if (now >= phaseEnd) {
                phaseEnd = now + random.nextLong(1000, 10_001);
                offeredPerSecond = rate * (0.2 + random.nextDouble() * 2.8);
                split = randomSplit(random, regions);
            }
            for (String region : regions) {
                Map.Entry<Long, ShareTable> due;
                while ((due = pending.get(region).firstEntry()) != null && due.getKey() <= now) {
                    applied.put(region, due.getValue());
                    pending.get(region).remove(due.getKey());
                }
            }
            if (now >= nextRun) {
                nextRun += interval;
                Map<String, Double> byRegion = new HashMap<>();
                for (String region : regions) {
                    DemandMeter.Window window = meters.get(region).drain();
                    DemandMeter.Counts counts = window.demand().get(BUCKET);
                    if (counts != null && reports.worthReporting(counts, window.millis(),
                            applied.get(region).isTracked(BUCKET.tenant(), BUCKET.route()),
                            books.get(region).ruleFor(BUCKET.tenant(), BUCKET.route()), 1)) {
                        byRegion.put(region, window.perSecond(counts.offeredTokens()));
                    }
                }
                ShareRebalancer.Plan plan = rebalancer.plan(Map.copyOf(kept),
                        byRegion.isEmpty() ? Map.of() : Map.of(BUCKET, byRegion), java.util.Set.copyOf(regions),
                        scope -> rule); // every region reports each run: none is cut off from PostgreSQL
                if (!plan.writes().isEmpty()) {
                    RegionShares before = kept.containsKey(BUCKET) ? kept.get(BUCKET).shares() : defaults;
                    kept.putAll(plan.writes());
                    RegionShares after = kept.get(BUCKET).shares();
                    Map<RuleScope, RegionShares> stored = new HashMap<>();
                    kept.forEach((scope, tracked) -> stored.put(scope, tracked.shares()));
                    ShareTable table = new ShareTable(defaults, stored);
                    for (String region : regions) {
                        pending.get(region).put(now + (maxDelay == 0 ? 0 : random.nextLong(0, maxDelay + 1)), table);
                    }
                    double raised = 0;
                    for (String region : regions) {
                        raised += Math.max(0, after.ppm(region) - before.ppm(region)) / 1e6;
                    }
                    changes.add(new Change(now, raised * (capacity + rate * maxDelay / 1000d)));
                    for (String region : regions) {
                        assertThat(after.ppm(region)).isGreaterThanOrEqualTo((int) MIN_SHARE_PPM);
                    }
                }
                continue; // shares due now are applied before any request
            }
            for (String region : regions) {
                double expected = offeredPerSecond * split.get(region) * stepMillis(random) / 1000d;
                long requests = (long) expected + (random.nextDouble() < expected - (long) expected ? 1 : 0);
                for (long i = 0; i < requests; i++) {
                    RateLimitRule regional = books.get(region).ruleFor(BUCKET.tenant(), BUCKET.route());
                    boolean admitted = stores.get(region).acquire(new BucketKey(BUCKET.tenant(), BUCKET.route()),
                            regional.limits()).allowed();
                    meters.get(region).record(BUCKET.tenant(), BUCKET.route(), 1, admitted);
                    if (admitted) {
                        admittedMicrosAt.merge(now, 1_000_000L, Long::sum);
                    }
                }
            }
            clock.advanceMillis(Math.min(stepMillis(random), Math.max(1, nextRun - now)));
        }
        double tightest = assertWithinBound(admittedMicrosAt, capacity, rate, maxDelay, changes);
        return new Outcome(tightest, changes.size());
    }

    /**
     * Over every window [a, b] between two admissions: admitted ≤ C + R × (b − a) + the allowance of
     * the changes applied in the window or still being applied at its start. Returns the largest
     * share of its bound that a window used (1 = exactly at the bound).
     */
    private static double assertWithinBound(TreeMap<Long, Long> admittedMicrosAt, long capacity, double rate,
                                            long maxDelay, List<Change> changes) {
        long[] times = admittedMicrosAt.keySet().stream().mapToLong(Long::longValue).toArray();
        long[] micros = admittedMicrosAt.values().stream().mapToLong(Long::longValue).toArray();
        long ratePerMilli = Math.round(rate * 1000);
        double tightest = 0;
        int firstOpen = 0; // changes are in time order: the first one still being applied at times[i]
        for (int i = 0; i < times.length; i++) {
            while (firstOpen < changes.size() && changes.get(firstOpen).atMillis() + maxDelay < times[i]) {
                firstOpen++;
            }
            long sum = 0;
            double allowance = 0;
            int next = firstOpen;
            for (int j = i; j < times.length; j++) {
                sum += micros[j];
                while (next < changes.size() && changes.get(next).atMillis() <= times[j]) {
                    allowance += changes.get(next++).allowanceTokens();
                }
                double bound = capacity * 1e6 + (double) ratePerMilli * (times[j] - times[i]) + allowance * 1e6;
                if (sum > bound) {
                    throw new AssertionError("admitted " + sum / 1e6 + " tokens in [" + times[i] + ", " + times[j]
                            + "] ms, bound " + bound / 1e6 + " (C " + capacity + ", R " + rate + "/s, Δ " + maxDelay
                            + " ms, changes " + changes + ")");
                }
                tightest = Math.max(tightest, sum / bound);
            }
        }
        return tightest;
    }

    private static long stepMillis(SplittableRandom random) {
        return random.nextLong(1, 21);
    }

    private static RegionShares randomShares(SplittableRandom random, List<String> regions) {
        Map<String, Integer> ppm = new LinkedHashMap<>();
        int left = 1_000_000;
        for (int i = 0; i < regions.size() - 1; i++) {
            int most = left - (int) MIN_SHARE_PPM * (regions.size() - 1 - i);
            int share = random.nextInt((int) MIN_SHARE_PPM, most + 1);
            ppm.put(regions.get(i), share);
            left -= share;
        }
        ppm.put(regions.get(regions.size() - 1), left);
        return RegionShares.ofPpm(ppm);
    }

    private static Map<String, Double> randomSplit(SplittableRandom random, List<String> regions) {
        Map<String, Double> weights = new LinkedHashMap<>();
        double total = 0;
        for (String region : regions) {
            double w = random.nextInt(4) == 0 ? 0 : random.nextDouble();
            weights.put(region, w);
            total += w;
        }
        if (total == 0) {
            weights.put(regions.get(0), 1d);
            total = 1;
        }
        for (String region : regions) {
            weights.put(region, weights.get(region) / total);
        }
        return weights;
    }
}
