package dev.tollgate.core.region;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.ManualClock;
import dev.tollgate.core.RuleScope;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DemandMeterTest {

    @Test
    void aWindowHoldsWhatWasOfferedAndAdmittedInItsTimeAndTheNextStartsEmpty() {
        ManualClock clock = new ManualClock();
        DemandMeter meter = new DemandMeter(clock);
        meter.record("shop", "orders", 1, true);
        meter.record("shop", "orders", 1, false);
        meter.record("shop", "orders", 3, true);
        meter.record("shop", "catalog", 2, false);
        clock.advanceMillis(2000);

        DemandMeter.Window first = meter.drain();
        assertThat(first.millis()).isEqualTo(2000);
        assertThat(first.demand()).containsEntry(new RuleScope("shop", "orders"), new DemandMeter.Counts(5, 4))
                .containsEntry(new RuleScope("shop", "catalog"), new DemandMeter.Counts(2, 0)).hasSize(2);
        assertThat(first.perSecond(5)).isEqualTo(2.5);

        clock.advanceMillis(500);
        DemandMeter.Window second = meter.drain();
        assertThat(second.millis()).isEqualTo(500);
        assertThat(second.demand()).isEmpty();
    }

    @Test
    void recordsFromManyThreadsAreAllCounted() throws Exception {
        DemandMeter meter = new DemandMeter(new ManualClock());
        int threads = 4;
        int perThread = 50_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < perThread; i++) {
                    meter.record("hot", "r", 1, i % 2 == 0);
                    meter.record("t" + (i % 100), "r", 1, true);
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : done) {
            f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        DemandMeter.Window window = meter.drain();
        assertThat(window.demand().get(new RuleScope("hot", "r")))
                .isEqualTo(new DemandMeter.Counts((long) threads * perThread, (long) threads * perThread / 2));
        assertThat(window.demand()).hasSize(101);
        assertThat(window.demand().values().stream().mapToLong(DemandMeter.Counts::offeredTokens).sum())
                .isEqualTo(2L * threads * perThread);
    }
}
