package dev.tollgate.bench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TimeHistogramTest {

    private static final String BEFORE = """
            # TYPE tollgate_decision_duration_seconds histogram
            tollgate_decision_duration_seconds_bucket{le="1.0E-4"} 100
            tollgate_decision_duration_seconds_bucket{le="2.0E-4"} 100
            tollgate_decision_duration_seconds_bucket{le="0.001"} 100
            tollgate_decision_duration_seconds_bucket{le="+Inf"} 100
            tollgate_decision_duration_seconds_count 100
            tollgate_redis_latency_seconds_bucket{le="1.0E-4"} 7
            """;

    private static final String AFTER = """
            tollgate_decision_duration_seconds_bucket{le="1.0E-4"} 1000
            tollgate_decision_duration_seconds_bucket{le="2.0E-4"} 1090
            tollgate_decision_duration_seconds_bucket{le="0.001"} 1099
            tollgate_decision_duration_seconds_bucket{le="+Inf"} 1100
            tollgate_decision_duration_seconds_count 1100
            """;

    @Test
    void aRunsPercentilesAreTheUpperBoundsOfTheBucketsTheyFallIn() {
        TimeHistogram run = TimeHistogram.parse(AFTER, TimeHistogram.DECISION).minus(TimeHistogram.parse(BEFORE, TimeHistogram.DECISION));

        assertThat(run.count()).isEqualTo(1000);
        assertThat(run.percentileUpperBoundMillis(50)).isEqualTo(0.1);
        assertThat(run.percentileUpperBoundMillis(90)).isEqualTo(0.1);
        assertThat(run.percentileUpperBoundMillis(99)).isEqualTo(0.2);
        assertThat(run.percentileUpperBoundMillis(99.9)).isEqualTo(1.0);
        assertThat(run.percentileUpperBoundMillis(100)).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void instancesAddUpAndAGatewayWithoutTheHistogramHasNone() {
        TimeHistogram one = TimeHistogram.parse(AFTER, TimeHistogram.DECISION);
        assertThat(one.plus(one).count()).isEqualTo(2200);
        TimeHistogram none = TimeHistogram.parse("http_server_requests_seconds_count 3.0\n", TimeHistogram.DECISION);
        assertThat(none.count()).isZero();
        assertThat(none.percentileUpperBoundMillis(99)).isNaN();
    }
}
