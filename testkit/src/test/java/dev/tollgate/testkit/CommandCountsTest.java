package dev.tollgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CommandCountsTest {

    private static final String BEFORE = """
            # Commandstats\r
            cmdstat_evalsha:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r
            cmdstat_time:calls=10,usec=5,usec_per_call=0.50,rejected_calls=0,failed_calls=0\r
            cmdstat_info:calls=3,usec=50,usec_per_call=16.67,rejected_calls=0,failed_calls=0\r
            """;
    private static final String AFTER = """
            # Commandstats\r
            cmdstat_evalsha:calls=110,usec=1100,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r
            cmdstat_time:calls=110,usec=55,usec_per_call=0.50,rejected_calls=0,failed_calls=0\r
            cmdstat_hset:calls=100,usec=80,usec_per_call=0.80,rejected_calls=0,failed_calls=0\r
            cmdstat_info:calls=4,usec=70,usec_per_call=17.50,rejected_calls=0,failed_calls=0\r
            """;

    @Test
    void theDifferenceCountsScriptCallsAndTheCommandsInsideThemButNotTheObserversInfo() {
        CommandCounts delta = CommandCounts.parse(AFTER).since(CommandCounts.parse(BEFORE));

        assertThat(delta.calls()).containsOnlyKeys("evalsha", "time", "hset");
        assertThat(delta.scriptCalls()).isEqualTo(100);
        assertThat(delta.total()).isEqualTo(300);
    }
}
