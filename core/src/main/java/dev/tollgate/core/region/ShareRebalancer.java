package dev.tollgate.core.region;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The rebalancer's arithmetic, one run at a time, with no I/O: from the demand each region reported
 * and what was kept from earlier runs, the new shares of every bucket.
 *
 * <p>A run, per bucket:
 * <ol>
 *   <li>A bucket is <em>tracked</em> from the first run in which some region reported it near its
 *       limit. That run only starts tracking it at its current (default) shares, which changes no
 *       limit: regions report a bucket only when it is near their part of the limit or tracked, so
 *       the other regions' demand is known only from the next run on.</li>
 *   <li>Each configured region's demand (offered tokens per second, summed over its instances) is
 *       smoothed: {@code d = smoothing × reported + (1 − smoothing) × d}.</li>
 *   <li>A region that reported nothing for the bucket while another did is not taken for a region
 *       without demand at once: regions close their report windows at different moments, so when
 *       traffic starts or stops, one region's window may show it a run before another's. The bucket
 *       is left as it was for that run (no demand updated, no share moved). Only if the region is
 *       still without a report in the next run does it count 0 (its traffic really stopped). When
 *       no region reported the bucket, each counts 0: every region's demand decays alike, so the
 *       shares' proportions hold.</li>
 *   <li>The shares move only if some region's smoothed demand reached {@code nearLimit} of what it may
 *       admit now ({@code R × its share}), or if the stored shares name other regions than the
 *       configuration (a region added or removed). They move to {@link #proportional}: each region's
 *       share proportional to its smoothed demand, no region below the minimum share. A move smaller
 *       than {@link #MIN_MOVE_PPM} in every region is not made (no churn on noise).</li>
 * </ol>
 *
 * <p>Nothing moves while a configured region has no fresh report at all ({@code silent}): it may be
 * cut off from PostgreSQL and still enforcing its last shares, and lowering the others' shares while
 * it cannot hear of it is the one way shares could sum to more than 1 for long.
 *
 * <p>Every share it writes is a {@link RegionShares}: at least the minimum in every region, summing to
 * exactly 1, so the buckets of all regions together hold at most {@code C} and refill at most
 * {@code R}, whatever the demand.
 */
public final class ShareRebalancer {

    /** Shares are rewritten only when some region's share moves by at least this much (0.01). */
    public static final int MIN_MOVE_PPM = 10_000;

    /** Smoothed demand below this (tokens per second) counts as none, so idle buckets stop being written. */
    static final double NEGLIGIBLE_DEMAND = 0.001;

    private static final int WHOLE = RateLimitRule.WHOLE_SHARE_PPM;

    /**
     * What is kept of a tracked bucket between runs: its shares and each region's smoothed demand
     * (offered tokens per second); a region without an entry has no demand known yet, and its first
     * report is taken as it is.
     */
    public record Tracked(RegionShares shares, Map<String, Double> smoothedDemand) {

        public Tracked {
            smoothedDemand = Map.copyOf(smoothedDemand);
        }
    }

    /**
     * The outcome of a run.
     *
     * @param writes  every bucket whose kept state changes (shares or smoothed demand), new state
     * @param moved   the buckets among them whose shares change
     * @param started the buckets tracked from this run on
     * @param silent  configured regions that reported nothing; when not empty, nothing else happens
     */
    public record Plan(Map<RuleScope, Tracked> writes, Set<RuleScope> moved, Set<RuleScope> started,
                       Set<String> silent) {
    }

    private final RebalancerSettings settings;

    /**
     * Per bucket, the regions left without a report in the last run while another region reported
     * it (the bucket was held). Kept in memory by the instance that runs the rebalancer: a new
     * leader starts with none, which at worst holds a bucket one run more.
     */
    private final Map<RuleScope, Set<String>> heldFor = new HashMap<>();

    public ShareRebalancer(RebalancerSettings settings) {
        this.settings = settings;
    }

    public RebalancerSettings settings() {
        return settings;
    }

    /**
     * One run.
     *
     * @param tracked   what earlier runs kept, by bucket
     * @param reported  offered tokens per second by bucket and region, as the regions reported them
     *                  (buckets near a region's limit, and tracked buckets with any demand)
     * @param reporting the regions with at least one instance that reported lately (even nothing)
     * @param rules     the rule of a bucket as written (not scaled to any region)
     */
    public Plan plan(Map<RuleScope, Tracked> tracked, Map<RuleScope, Map<String, Double>> reported,
                     Set<String> reporting, Function<RuleScope, RateLimitRule> rules) {
        Set<String> configured = settings.defaults().regions();
        Set<String> silent = new TreeSet<>(configured);
        silent.removeAll(reporting);
        if (!silent.isEmpty()) {
            return new Plan(Map.of(), Set.of(), Set.of(), silent);
        }
        Map<RuleScope, Tracked> writes = new HashMap<>();
        Set<RuleScope> moved = new HashSet<>();
        Set<RuleScope> started = new HashSet<>();
        for (Map.Entry<RuleScope, Map<String, Double>> report : reported.entrySet()) {
            if (!tracked.containsKey(report.getKey())) {
                // Only the regions that reported it: the others' demand is not known yet (not 0).
                Map<String, Double> demand = new LinkedHashMap<>();
                for (String region : configured) {
                    Double offered = report.getValue().get(region);
                    if (offered != null) {
                        demand.put(region, negligibleAsZero(offered));
                    }
                }
                writes.put(report.getKey(), new Tracked(settings.defaults(), demand));
                started.add(report.getKey());
            }
        }
        Map<RuleScope, Set<String>> held = new HashMap<>();
        for (Map.Entry<RuleScope, Tracked> entry : tracked.entrySet()) {
            RuleScope bucket = entry.getKey();
            Tracked before = entry.getValue();
            Map<String, Double> report = reported.getOrDefault(bucket, Map.of());
            Set<String> missing = new TreeSet<>(configured);
            missing.removeAll(report.keySet());
            if (!report.isEmpty() && !missing.isEmpty()) {
                held.put(bucket, missing);
                if (!heldFor.getOrDefault(bucket, Set.of()).containsAll(missing)) {
                    continue; // a region's window may not show this bucket yet: wait one run
                }
            }
            Tracked after = next(before, report, rules.apply(bucket));
            if (!after.equals(before)) {
                writes.put(bucket, after);
                if (!after.shares().equals(before.shares())) {
                    moved.add(bucket);
                }
            }
        }
        heldFor.clear();
        heldFor.putAll(held);
        return new Plan(writes, moved, started, Set.of());
    }

    private Tracked next(Tracked before, Map<String, Double> reported, RateLimitRule rule) {
        RegionShares defaults = settings.defaults();
        Map<String, Double> smoothed = new LinkedHashMap<>();
        double total = 0;
        for (String region : defaults.regions()) {
            double now = reported.getOrDefault(region, 0d);
            Double earlier = before.smoothedDemand().get(region);
            double d = earlier == null ? now : settings.smoothing() * now + (1 - settings.smoothing()) * earlier;
            d = negligibleAsZero(d);
            smoothed.put(region, d);
            total += d;
        }
        RegionShares current = before.shares();
        boolean regionsChanged = !current.regions().equals(defaults.regions());
        boolean near = false;
        for (String region : defaults.regions()) {
            int enforced = current.has(region) ? current.ppm(region) : defaults.ppm(region);
            double mayAdmit = rule.refillPerSecond() * enforced / WHOLE;
            near |= smoothed.get(region) > 0 && smoothed.get(region) >= settings.nearLimit() * mayAdmit;
        }
        RegionShares shares = current;
        if (regionsChanged && total == 0) {
            shares = defaults;
        } else if (regionsChanged || near) {
            RegionShares target = proportional(smoothed, settings.minSharePpm());
            if (regionsChanged || target.maxDifferencePpm(current) >= MIN_MOVE_PPM) {
                shares = target;
            }
        }
        return new Tracked(shares, smoothed);
    }

    /**
     * Shares proportional to {@code demand} (all regions, none negative) with a floor of
     * {@code floorPpm} each: regions whose proportional share would fall below the floor get the
     * floor, and the rest is split in proportion among the others (repeated until no region is
     * below the floor). Rounded to whole millionths by largest remainder, so they sum to exactly
     * 10^6 and each is off its exact value by less than 1 ppm. No demand at all: equal shares.
     */
    public static RegionShares proportional(Map<String, Double> demand, int floorPpm) {
        List<String> regions = new ArrayList<>(new TreeSet<>(demand.keySet()));
        if ((long) floorPpm * regions.size() > WHOLE) {
            throw new IllegalArgumentException("a floor of " + floorPpm + " ppm cannot hold for " + regions.size()
                    + " regions");
        }
        Set<String> floored = new HashSet<>();
        Map<String, Double> raw = new HashMap<>();
        boolean settled = false;
        while (!settled) {
            settled = true;
            double free = WHOLE - (double) floorPpm * floored.size();
            double sum = 0;
            int open = 0;
            for (String region : regions) {
                if (!floored.contains(region)) {
                    sum += demand.get(region);
                    open++;
                }
            }
            for (String region : regions) {
                if (floored.contains(region)) {
                    raw.put(region, (double) floorPpm);
                    continue;
                }
                double share = sum > 0 ? free * demand.get(region) / sum : free / open;
                if (share < floorPpm) {
                    floored.add(region);
                    settled = false;
                }
                raw.put(region, share);
            }
        }
        Map<String, Integer> ppm = new LinkedHashMap<>();
        long assigned = 0;
        for (String region : regions) {
            int base = floored.contains(region) ? floorPpm : (int) Math.floor(raw.get(region));
            ppm.put(region, base);
            assigned += base;
        }
        List<String> byRemainder = new ArrayList<>(regions);
        byRemainder.removeAll(floored);
        byRemainder.sort(Comparator.comparingDouble((String r) -> raw.get(r) - Math.floor(raw.get(r))).reversed()
                .thenComparing(Comparator.naturalOrder()));
        long left = WHOLE - assigned;
        // Floors leave 0 to (regions − 1) millionths to hand out, largest remainder first; float
        // rounding can leave one too many, taken back from a region above the floor.
        for (int i = 0; left > 0; i = (i + 1) % byRemainder.size()) {
            String region = byRemainder.get(i);
            ppm.put(region, ppm.get(region) + 1);
            left--;
        }
        for (int i = byRemainder.size() - 1; left < 0; i = (i + byRemainder.size() - 1) % byRemainder.size()) {
            String region = byRemainder.get(i);
            if (ppm.get(region) > floorPpm) {
                ppm.put(region, ppm.get(region) - 1);
                left++;
            }
        }
        return RegionShares.ofPpm(ppm);
    }

    private static double negligibleAsZero(double demand) {
        return demand < NEGLIGIBLE_DEMAND ? 0 : demand;
    }
}
