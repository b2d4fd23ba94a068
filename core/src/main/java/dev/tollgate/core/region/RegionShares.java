package dev.tollgate.core.region;

import dev.tollgate.core.RateLimitRule;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * How one limit is split across regions: each region's share in millionths (ppm), every share at
 * least 1 ppm, and the shares summing to exactly {@value RateLimitRule#WHOLE_SHARE_PPM}. Integers,
 * so "the shares sum to 1" holds exactly, with no float rounding: the regions' buckets together
 * never hold more than the rule's capacity (see {@link RateLimitRule#limits()} for the floors).
 * Immutable; regions are kept in name order.
 */
public final class RegionShares {

    /** What a region name may be: lower-case letters, digits, '-' and '_', 1 to 32, starting with a letter or digit. */
    public static final Pattern REGION_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");

    private static final int WHOLE = RateLimitRule.WHOLE_SHARE_PPM;
    private static final BigDecimal MILLION = BigDecimal.valueOf(WHOLE);

    private final Map<String, Integer> ppm;

    private RegionShares(Map<String, Integer> ppm) {
        this.ppm = Collections.unmodifiableMap(ppm);
    }

    /** Shares given in millionths; fails, naming the bad value, unless they are valid and sum to 10^6. */
    public static RegionShares ofPpm(Map<String, Integer> shares) {
        if (shares == null || shares.isEmpty()) {
            throw new IllegalArgumentException("at least one region is needed");
        }
        TreeMap<String, Integer> sorted = new TreeMap<>();
        long sum = 0;
        for (Map.Entry<String, Integer> e : shares.entrySet()) {
            requireRegionName(e.getKey());
            Integer share = e.getValue();
            if (share == null || share < 1 || share > WHOLE) {
                throw new IllegalArgumentException("the share of region '" + e.getKey()
                        + "' must be between 1 and " + WHOLE + " millionths, was " + share);
            }
            sorted.put(e.getKey(), share);
            sum += share;
        }
        if (sum != WHOLE) {
            throw new IllegalArgumentException("region shares must sum to " + WHOLE + " millionths, were " + sum
                    + " " + sorted);
        }
        return new RegionShares(sorted);
    }

    /**
     * Shares written as decimals, as in configuration: each in (0, 1] with at most six decimals, and
     * summing to exactly 1. Decimals, not doubles, so that 0.7 + 0.2 + 0.1 is 1 and nothing is rounded.
     */
    public static RegionShares ofDecimals(Map<String, BigDecimal> shares) {
        if (shares == null || shares.isEmpty()) {
            throw new IllegalArgumentException("at least one region is needed");
        }
        Map<String, Integer> ppm = new LinkedHashMap<>();
        BigDecimal sum = BigDecimal.ZERO;
        for (Map.Entry<String, BigDecimal> e : shares.entrySet()) {
            requireRegionName(e.getKey());
            BigDecimal share = e.getValue();
            if (share == null || share.signum() <= 0 || share.compareTo(BigDecimal.ONE) > 0) {
                throw new IllegalArgumentException("the share of region '" + e.getKey()
                        + "' must be greater than 0 and at most 1, was " + plain(share));
            }
            if (share.stripTrailingZeros().scale() > 6) {
                throw new IllegalArgumentException("the share of region '" + e.getKey()
                        + "' has at most six decimals, was " + plain(share));
            }
            sum = sum.add(share);
            ppm.put(e.getKey(), share.multiply(MILLION).intValueExact());
        }
        if (sum.compareTo(BigDecimal.ONE) != 0) {
            StringBuilder given = new StringBuilder();
            shares.forEach((region, share) -> given.append(given.isEmpty() ? "" : " + ")
                    .append(region).append(' ').append(plain(share)));
            throw new IllegalArgumentException("region shares must sum to 1, but " + given + " = " + plain(sum));
        }
        return ofPpm(ppm);
    }

    /** The whole limit in one region. */
    public static RegionShares whole(String region) {
        return ofPpm(Map.of(region, WHOLE));
    }

    /** Fails, quoting the name, unless it is a valid region name. */
    public static String requireRegionName(String region) {
        if (region == null || !REGION_NAME.matcher(region).matches()) {
            throw new IllegalArgumentException("a region name is 1 to 32 of a-z, 0-9, '-' and '_', starting with a"
                    + " letter or digit; was '" + region + "'");
        }
        return region;
    }

    /** The share of {@code region} in millionths; 0 if it has none. */
    public int ppm(String region) {
        Integer share = ppm.get(region);
        return share == null ? 0 : share;
    }

    public boolean has(String region) {
        return ppm.containsKey(region);
    }

    /** The regions, in name order. */
    public Set<String> regions() {
        return ppm.keySet();
    }

    /** Region → share in millionths, in name order. */
    public Map<String, Integer> ppmByRegion() {
        return ppm;
    }

    /** Region → share as a fraction of 1 (for display: 700000 ppm is 0.7), in name order. */
    public Map<String, Double> fractions() {
        Map<String, Double> out = new LinkedHashMap<>();
        ppm.forEach((region, share) -> out.put(region, share / (double) WHOLE));
        return out;
    }

    /** The largest difference, in millionths, between this and {@code other} over the regions of either. */
    public int maxDifferencePpm(RegionShares other) {
        int max = 0;
        for (String region : regions()) {
            max = Math.max(max, Math.abs(ppm(region) - other.ppm(region)));
        }
        for (String region : other.regions()) {
            max = Math.max(max, Math.abs(ppm(region) - other.ppm(region)));
        }
        return max;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RegionShares other && ppm.equals(other.ppm);
    }

    @Override
    public int hashCode() {
        return ppm.hashCode();
    }

    @Override
    public String toString() {
        return fractions().toString();
    }

    private static String plain(BigDecimal value) {
        return value == null ? "null" : value.toPlainString();
    }
}
