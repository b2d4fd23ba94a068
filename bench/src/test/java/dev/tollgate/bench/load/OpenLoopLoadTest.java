package dev.tollgate.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tollgate.testkit.TestUpstream;
import java.time.Duration;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.netty.resources.LoopResources;

/** The generators against the real upstream, in-process, for a fraction of a second. */
class OpenLoopLoadTest {

    private static TestUpstream upstream;
    private static LoopResources loops;
    private static HttpTarget target;

    @BeforeAll
    static void start() {
        upstream = new TestUpstream();
        loops = LoopResources.create("test-load", 1, true);
        target = new HttpTarget("upstream", upstream.uri(), loops, Duration.ofSeconds(5));
    }

    @AfterAll
    static void stop() {
        target.close();
        loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10)); // no quiet period: nothing more will come
        upstream.close();
    }

    @Test
    void sendsExactlyRateTimesDurationAndRecordsEveryAnswer() {
        int before = upstream.requests();
        LoadResult result = new OpenLoopLoad(target, new RequestMix("/x", "tenant-", 10))
                .run(200, Duration.ofMillis(500), Duration.ofSeconds(5));

        assertThat(result.sent()).isEqualTo(100);
        assertThat(result.ok()).isEqualTo(100);
        assertThat(result.errors()).isZero();
        assertThat(upstream.requests() - before).as("requests that reached the backend").isEqualTo(100);
        assertThat(result.latencyMicros().getTotalCount()).isEqualTo(100);
        assertThat(result.sendLagMicros().getTotalCount()).isEqualTo(100);
        // 100 requests due over 0.495 s: the run cannot be shorter than its schedule.
        assertThat(result.seconds()).isGreaterThanOrEqualTo(0.495);
        assertThat(result.admittedSpanSeconds()).isBetween(0.495, result.seconds());
    }

    @Test
    void closedLoopReportsCompletionsPerSecondOfTheMeasuredWindow() {
        // A ramp-up first: on a busy machine the first connections alone can take a second.
        LoadResult result = new ClosedLoopLoad(target, RequestMix.singleTenant("/x", "t"))
                .run(4, Duration.ofSeconds(1), Duration.ofSeconds(2));

        assertThat(result.ok()).isPositive();
        assertThat(result.sent()).isGreaterThanOrEqualTo(result.ok());
        assertThat(result.errors()).isZero();
        assertThat(result.achievedRate()).isEqualTo(result.ok() / 2.0, Offset.offset(1e-6));
    }

    @Test
    void loadGoesToLoopbackOnly() {
        assertThatThrownBy(() -> new HttpTarget("elsewhere", "http://10.0.0.1:80", loops, Duration.ofSeconds(1)))
                .hasMessageContaining("127.0.0.1");
    }
}
