package dev.tollgate.bench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DecisionCountersTest {

    private static final String EXPOSITION = """
            # HELP tollgate_decisions_total Rate-limit decisions
            # TYPE tollgate_decisions_total counter
            tollgate_decisions_total{outcome="allowed",route="accuracy",source="lease"} 168.0
            tollgate_decisions_total{outcome="rejected",route="accuracy",source="lease"} 1104.0
            tollgate_decisions_total{outcome="allowed",route="accuracy",source="local-fallback"} 323.0
            tollgate_decisions_total{outcome="rejected",route="bench",source="local-fallback"} 7.0
            tollgate_decisions_total{outcome="allowed",route="accuracy",source="redis"} 275.0
            tollgate_leases_calls_total 61.0
            tollgate_leases_local_decisions_total 1272.0
            tollgate_leases_returns_total 1.0
            tollgate_redis_failures_total{reason="timeout"} 174.0
            tollgate_redis_failures_total{reason="connection"} 2.0
            tollgate_redis_latency_seconds_count 590.0
            """;

    @Test
    void sumsDecisionsBySourceOverRoutesAndOutcomes() {
        DecisionSplit split = DecisionCounters.parse(EXPOSITION);

        assertThat(split).isEqualTo(new DecisionSplit(275, 1272, 330, 176, 61, 1));
        assertThat(split.fallbackDecided()).isTrue();
        assertThat(split.decisions()).isEqualTo(1877);
    }

    @Test
    void aRunIsTheDifferenceOfTwoSnapshots() {
        DecisionSplit before = new DecisionSplit(10, 20, 0, 0, 2, 0);
        DecisionSplit after = new DecisionSplit(15, 120, 0, 0, 4, 1);

        assertThat(after.minus(before)).isEqualTo(new DecisionSplit(5, 100, 0, 0, 2, 1));
        assertThat(after.minus(before).fallbackDecided()).isFalse();
    }

    @Test
    void aLimiterWithoutTollgateCountersSplitsNothing() {
        DecisionCounters none = DecisionCounters.none();

        assertThat(none.snapshot().since(none.snapshot())).isEqualTo(DecisionSplit.NONE);
        assertThat(DecisionCounters.parse("# nothing of ours\nhttp_server_requests_seconds_count 3.0\n"))
                .isEqualTo(DecisionSplit.NONE);
    }
}
