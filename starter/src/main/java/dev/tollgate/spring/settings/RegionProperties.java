package dev.tollgate.spring.settings;

import dev.tollgate.core.region.RegionShares;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * This instance's region and the regions' default shares ({@code tollgate.region},
 * {@code tollgate.regions.<name>.share}). Checked when bound: with a region set, the regions must
 * name it and their shares must sum to exactly 1, or the gateway does not start and says why.
 *
 * @param region  This instance's region (e.g. eu). Unset: a single region, every limit enforced whole in one Redis.
 * @param regions Every region and its default share of every limit (e.g. eu 0.7, us 0.3), summing to 1; the shares
 *                buckets have until the rebalancer moves them. Needed with tollgate.region.
 */
@ConfigurationProperties("tollgate")
public record RegionProperties(String region, @DefaultValue Map<String, Region> regions) {

    public RegionProperties {
        region = region == null || region.isBlank() ? null : region.trim();
        regions = regions == null ? Map.of() : Map.copyOf(regions);
        if (region != null) {
            defaultShares(region, regions); // fail now, naming the bad value
        }
    }

    /**
     * One region.
     *
     * @param share The region's default share of every limit: greater than 0, at most 1, six decimals at most.
     */
    public record Region(BigDecimal share) {
    }

    /** The configured default shares; only with a region set. */
    public RegionShares defaultShares() {
        return defaultShares(region, regions);
    }

    private static RegionShares defaultShares(String region, Map<String, Region> regions) {
        try {
            RegionShares.requireRegionName(region);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("tollgate.region", region, "tollgate.region: " + e.getMessage());
        }
        if (regions.isEmpty()) {
            throw new InvalidSettingException("tollgate.regions", null, "tollgate.region is '" + region
                    + "' but no region has a share:"
                    + " set tollgate.regions.<name>.share for every region (e.g. tollgate.regions." + region
                    + ".share=0.7 and tollgate.regions.us.share=0.3), summing to 1");
        }
        if (!regions.containsKey(region)) {
            throw new InvalidSettingException("tollgate.region", region, "tollgate.region is '" + region
                    + "', which tollgate.regions does not"
                    + " name (it names " + new TreeSet<>(regions.keySet()) + ")");
        }
        Map<String, BigDecimal> shares = new LinkedHashMap<>();
        new TreeMap<>(regions).forEach((name, r) -> shares.put(name, r == null ? null : r.share()));
        try {
            return RegionShares.ofDecimals(shares);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("tollgate.regions", null, "tollgate.regions: " + e.getMessage());
        }
    }
}
