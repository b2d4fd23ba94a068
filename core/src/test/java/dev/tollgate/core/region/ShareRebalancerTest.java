package dev.tollgate.core.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tollgate.core.RandomizedCheck;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShareRebalancerTest {

    private static final RuleScope SHOP = new RuleScope("shop", "orders");
    private static final RateLimitRule RULE = RateLimitRule.of(100, 100);
    private static final RegionShares HALVES = RegionShares.ofPpm(Map.of("eu", 500_000, "us", 500_000));
    private static final Set<String> BOTH = Set.of("eu", "us");

    private final ShareRebalancer rebalancer = new ShareRebalancer(new RebalancerSettings(HALVES, 50_000, 0.7, 0.5));
    private final Map<RuleScope, ShareRebalancer.Tracked> kept = new HashMap<>();

    /** One run; its writes are kept, as the database would keep them. */
    private ShareRebalancer.Plan run(Map<RuleScope, Map<String, Double>> reported, Set<String> reporting) {
        ShareRebalancer.Plan plan = rebalancer.plan(Map.copyOf(kept), reported, reporting, scope -> RULE);
        kept.putAll(plan.writes());
        return plan;
    }

    private static Map<RuleScope, Map<String, Double>> demand(double eu, double us) {
        Map<String, Double> byRegion = new LinkedHashMap<>();
        if (eu > 0) {
            byRegion.put("eu", eu);
        }
        if (us > 0) {
            byRegion.put("us", us);
        }
        return Map.of(SHOP, byRegion);
    }

    @Test
    void aBucketNearItsLimitIsTrackedFirstThenMovedToWhereItsDemandIs() {
        // 80 % of 150 tokens/s in eu, which may admit 50: near (and over) its part.
        ShareRebalancer.Plan first = run(Map.of(SHOP, Map.of("eu", 120d)), BOTH);
        assertThat(first.started()).containsExactly(SHOP);
        assertThat(first.moved()).isEmpty();
        assertThat(kept.get(SHOP).shares()).isEqualTo(HALVES);

        ShareRebalancer.Plan second = run(demand(120, 30), BOTH);
        assertThat(second.moved()).containsExactly(SHOP);
        assertThat(kept.get(SHOP).shares().fractions().get("eu")).isCloseTo(0.8, within(0.01));

        for (int i = 0; i < 5; i++) {
            run(demand(120, 30), BOTH);
        }
        assertThat(kept.get(SHOP).shares().ppm("eu")).isCloseTo(800_000, within(ShareRebalancer.MIN_MOVE_PPM));
        assertThat(kept.get(SHOP).shares().ppm("us")).isCloseTo(200_000, within(ShareRebalancer.MIN_MOVE_PPM));
    }

    @Test
    void aBucketActiveInOneRegionOnlyGetsAllButTheFloorThere() {
        run(Map.of(SHOP, Map.of("eu", 200d)), BOTH);
        for (int i = 0; i < 10; i++) {
            run(demand(200, 0), BOTH);
        }
        assertThat(kept.get(SHOP).shares().ppm("eu")).isEqualTo(950_000);
        assertThat(kept.get(SHOP).shares().ppm("us")).isEqualTo(50_000);
    }

    /**
     * Equal traffic in both regions (45 tokens/s each, near their part of 50) stops and restarts;
     * each time one region's report window shows the change a run before the other's. A region
     * without a report was taken for a region without demand: the shares went to 0.33/0.67 as the
     * traffic stopped and to 0.95/0.05 as it restarted. They stay near the halves the traffic has.
     */
    @Test
    void sharesHoldWhenTrafficStopsAndRestartsInOneRegionBeforeTheOther() {
        run(demand(45, 45), BOTH);
        for (int i = 0; i < 5; i++) {
            assertNearHalves(run(demand(45, 45), BOTH));
        }
        // Stops: eu's window shows it first, then both.
        assertNearHalves(run(demand(0, 45), BOTH));
        for (int i = 0; i < 20; i++) {
            assertNearHalves(run(Map.of(), BOTH));
        }
        // Restarts: eu's window shows it first, then both.
        assertNearHalves(run(demand(45, 0), BOTH));
        for (int i = 0; i < 10; i++) {
            assertNearHalves(run(demand(45, 45), BOTH));
        }
        // And the other way round.
        assertNearHalves(run(demand(45, 0), BOTH));
        assertNearHalves(run(demand(0, 45), BOTH));
        assertNearHalves(run(demand(45, 45), BOTH));
    }

    private void assertNearHalves(ShareRebalancer.Plan plan) {
        assertThat(kept.get(SHOP).shares().fractions().get("eu")).as("eu's share").isCloseTo(0.5, within(0.1));
    }

    @Test
    void aRegionWhoseTrafficReallyStopsCountsNoDemandFromTheSecondRunWithoutReport() {
        run(demand(45, 45), BOTH);
        run(demand(45, 45), BOTH);
        ShareRebalancer.Tracked before = kept.get(SHOP);

        ShareRebalancer.Plan held = run(demand(0, 45), BOTH);
        assertThat(held.writes()).isEmpty();
        assertThat(kept.get(SHOP)).isEqualTo(before);

        ShareRebalancer.Plan counted = run(demand(0, 45), BOTH);
        assertThat(kept.get(SHOP).smoothedDemand().get("eu")).isCloseTo(22.5, within(0.01));
        assertThat(counted.moved()).containsExactly(SHOP);
        for (int i = 0; i < 10; i++) {
            run(demand(0, 45), BOTH);
        }
        // us has all the demand, and moves until its 45 are no longer near what it may admit.
        assertThat(kept.get(SHOP).shares().ppm("us")).isGreaterThan(600_000);
    }

    @Test
    void sharesDoNotMoveWhileNoRegionIsNearItsPart() {
        run(Map.of(SHOP, Map.of("eu", 60d)), BOTH); // tracked: 60 ≥ 0.7 × 50
        kept.put(SHOP, new ShareRebalancer.Tracked(HALVES, Map.of("eu", 0d, "us", 0d)));
        ShareRebalancer.Plan quiet = run(demand(30, 10), BOTH); // 30 < 35 and 10 < 35
        assertThat(quiet.moved()).isEmpty();
        assertThat(kept.get(SHOP).shares()).isEqualTo(HALVES);
        assertThat(kept.get(SHOP).smoothedDemand()).containsEntry("eu", 15d).containsEntry("us", 5d);
    }

    @Test
    void nothingChangesWhileAConfiguredRegionHasNotReported() {
        kept.put(SHOP, new ShareRebalancer.Tracked(HALVES, Map.of("eu", 100d, "us", 0d)));
        ShareRebalancer.Plan plan = run(demand(150, 0), Set.of("eu"));
        assertThat(plan.silent()).containsExactly("us");
        assertThat(plan.writes()).isEmpty();
        assertThat(kept.get(SHOP).shares()).isEqualTo(HALVES);
    }

    @Test
    void smallMovesAreNotMade() {
        RegionShares close = RegionShares.ofPpm(Map.of("eu", 795_000, "us", 205_000));
        kept.put(SHOP, new ShareRebalancer.Tracked(close, Map.of("eu", 120d, "us", 30d)));
        ShareRebalancer.Plan plan = run(demand(120, 30), BOTH);
        assertThat(plan.moved()).isEmpty();
        assertThat(kept.get(SHOP).shares()).isEqualTo(close);
    }

    @Test
    void sharesOverRegionsTheConfigurationNoLongerMatchesAreRewrittenOverTheConfiguredOnes() {
        // Stored while the fleet had a third region, since removed from the configuration.
        RegionShares old = RegionShares.ofPpm(Map.of("eu", 500_000, "us", 300_000, "ap", 200_000));
        kept.put(SHOP, new ShareRebalancer.Tracked(old, Map.of("eu", 10d, "us", 10d, "ap", 10d)));
        ShareRebalancer.Plan plan = run(demand(10, 10), BOTH);
        assertThat(plan.moved()).containsExactly(SHOP);
        assertThat(kept.get(SHOP).shares()).isEqualTo(HALVES);

        // And added: stored over eu and us, configuration now eu, us and ap.
        ShareRebalancer threeWays = new ShareRebalancer(new RebalancerSettings(
                RegionShares.ofPpm(Map.of("eu", 400_000, "us", 400_000, "ap", 200_000)), 50_000, 0.7, 0.5));
        Map<RuleScope, ShareRebalancer.Tracked> stored = Map.of(SHOP, new ShareRebalancer.Tracked(
                RegionShares.ofPpm(Map.of("eu", 900_000, "us", 100_000)), Map.of("eu", 0d, "us", 0d)));
        ShareRebalancer.Plan added = threeWays.plan(stored, Map.of(), Set.of("eu", "us", "ap"), scope -> RULE);
        assertThat(added.writes().get(SHOP).shares().regions()).containsExactly("ap", "eu", "us");
        assertThat(added.writes().get(SHOP).shares().ppm("ap")).isEqualTo(200_000);
    }

    @Test
    void aChangedRuleKeepsItsSharesAndIsJudgedByItsNewRate() {
        RegionShares moved = RegionShares.ofPpm(Map.of("eu", 800_000, "us", 200_000));
        kept.put(SHOP, new ShareRebalancer.Tracked(moved, Map.of("eu", 80d, "us", 20d)));
        // The rule was raised tenfold: 80 tokens/s is far from eu's 800.
        ShareRebalancer.Plan plan = rebalancer.plan(Map.copyOf(kept), demand(80, 20), BOTH,
                scope -> RateLimitRule.of(1000, 1000));
        assertThat(plan.moved()).isEmpty();
    }

    @Test
    void proportionalSharesSumToOneKeepTheFloorAndFollowDemand() {
        RandomizedCheck.forAll(2000, random -> {
            int regions = random.nextInt(1, 7);
            int floor = random.nextInt(1, 1_000_000 / regions + 1);
            Map<String, Double> demand = new LinkedHashMap<>();
            for (int i = 0; i < regions; i++) {
                demand.put("r" + i, random.nextInt(4) == 0 ? 0d : random.nextDouble() * 1e6);
            }
            RegionShares shares = ShareRebalancer.proportional(demand, floor);
            assertThat(shares.ppmByRegion().values().stream().mapToLong(Integer::longValue).sum()).isEqualTo(1_000_000);
            double total = demand.values().stream().mapToDouble(Double::doubleValue).sum();
            for (String region : demand.keySet()) {
                assertThat(shares.ppm(region)).isGreaterThanOrEqualTo(floor);
                double exact = total == 0 ? 1_000_000d / regions : 1_000_000d * demand.get(region) / total;
                if (shares.ppm(region) > floor + 1) {
                    // Above the floor, never more than its proportion (others' floors only take from it).
                    assertThat((double) shares.ppm(region)).isLessThanOrEqualTo(exact + 1);
                }
            }
        });
    }

    @Test
    void settingsThatCannotHoldAreRefused() {
        assertThatThrownBy(() -> new RebalancerSettings(HALVES, 600_000, 0.7, 0.5))
                .hasMessageContaining("at most 1/2").hasMessageContaining("0.6");
        assertThatThrownBy(() -> new RebalancerSettings(HALVES, 0, 0.7, 0.5)).hasMessageContaining("minimum share");
        assertThatThrownBy(() -> new RebalancerSettings(HALVES, 1, 0, 0.5)).hasMessageContaining("nearLimit");
        assertThatThrownBy(() -> new RebalancerSettings(HALVES, 1, 0.5, 1.5)).hasMessageContaining("1.5");
    }
}
