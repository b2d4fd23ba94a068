package dev.tollgate.core.region;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RateLimitRule;
import org.junit.jupiter.api.Test;

class ReportFilterTest {

    private final ReportFilter filter = new ReportFilter(0.7);
    /** 100 tokens/s, half of it in this region. */
    private final RateLimitRule regional = RateLimitRule.of(100, 100).inRegion(500_000);

    @Test
    void aBucketIsReportedWhenTrackedOrNearThisInstancesPartOfTheRegionsLimit() {
        // 2 instances: this one's even part is 25 tokens/s; near = 17.5 tokens/s.
        assertThat(filter.worthReporting(new DemandMeter.Counts(180, 180), 10_000, false, regional, 2)).isTrue();
        assertThat(filter.worthReporting(new DemandMeter.Counts(170, 170), 10_000, false, regional, 2)).isFalse();
        assertThat(filter.worthReporting(new DemandMeter.Counts(170, 170), 10_000, true, regional, 2)).isTrue();
        assertThat(filter.worthReporting(new DemandMeter.Counts(3, 2), 10_000, false, regional, 2))
                .as("a rejection").isTrue();
        assertThat(filter.worthReporting(new DemandMeter.Counts(0, 0), 10_000, true, regional, 2)).isFalse();
    }
}
