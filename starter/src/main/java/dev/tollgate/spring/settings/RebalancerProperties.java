package dev.tollgate.spring.settings;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.region.RebalancerSettings;
import dev.tollgate.core.region.RegionShares;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import java.math.BigDecimal;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The rebalancer that moves each limit's regional shares toward where its traffic is
 * ({@code tollgate.rebalancer.*}); used only with {@code tollgate.region} set.
 *
 * @param enabled   Whether the shares move with the traffic; false keeps every limit at the default shares.
 * @param interval  How often each instance reports its demand and the rebalancer (one instance fleet-wide) runs.
 * @param minShare  The least share the rebalancer leaves any region, so a quiet region can still serve a first burst
 *                  (greater than 0, at most 1 / number of regions).
 * @param nearLimit A limit's shares move only once some region's demand reached this fraction of what that region
 *                  may admit (its share of the rate).
 * @param smoothing Weight of the newest interval in each region's smoothed demand (1: no smoothing).
 */
@ConfigurationProperties("tollgate.rebalancer")
@Validated
public record RebalancerProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("2m") @DurationMin(millis = 100) Duration interval,
        @DefaultValue("0.05") @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") BigDecimal minShare,
        @DefaultValue("0.7") @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") double nearLimit,
        @DefaultValue("0.5") @DecimalMin(value = "0", inclusive = false) @DecimalMax("1") double smoothing) {

    /** The core settings for these regions; fails, quoting the values, if the minimum share cannot hold. */
    public RebalancerSettings settings(RegionShares defaults) {
        BigDecimal ppm = minShare.multiply(BigDecimal.valueOf(RateLimitRule.WHOLE_SHARE_PPM));
        if (ppm.stripTrailingZeros().scale() > 0) {
            throw new InvalidSettingException("tollgate.rebalancer.min-share", minShare.toPlainString(),
                    "tollgate.rebalancer.min-share has at most six decimals, was " + minShare.toPlainString());
        }
        try {
            return new RebalancerSettings(defaults, ppm.intValueExact(), nearLimit, smoothing);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("tollgate.rebalancer.min-share", minShare.toPlainString(),
                    "tollgate.rebalancer.min-share " + minShare.toPlainString() + ": " + e.getMessage());
        }
    }
}
