package dev.tollgate.core.region;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RuleScope;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts, in memory, what one instance's requests asked of each bucket and what was admitted, for
 * the rebalancer: tokens offered (every decided request's cost) and tokens admitted, per
 * (tenant, route), over a window that {@link #drain()} closes. Nothing is written anywhere per
 * request: the owner publishes a window's totals once per rebalancer interval.
 *
 * <p>Recording is lock-free (a map lookup and two {@link LongAdder} additions). Error bound: a
 * request recorded while {@link #drain()} swaps windows may be counted in neither window; at most
 * as many requests per key as there are threads recording at that instant, once per window.
 */
public final class DemandMeter {

    /** Totals of one bucket over a window, in tokens (a request's cost). */
    public record Counts(long offeredTokens, long admittedTokens) {
    }

    /** A closed window: how long it lasted and the totals of every bucket with requests in it. */
    public record Window(long millis, Map<RuleScope, Counts> demand) {

        /** Offered tokens per second of one bucket's counts over this window. */
        public double perSecond(long tokens) {
            return millis <= 0 ? 0 : tokens * 1000d / millis;
        }
    }

    private static final class Counter {
        final LongAdder offered = new LongAdder();
        final LongAdder admitted = new LongAdder();
    }

    private final MonotonicClock clock;
    private final AtomicReference<ConcurrentHashMap<RuleScope, Counter>> current =
            new AtomicReference<>(new ConcurrentHashMap<>());
    private long windowStart;

    public DemandMeter(MonotonicClock clock) {
        this.clock = clock;
        this.windowStart = clock.millis();
    }

    /** Records one decided request of {@code costTokens}, admitted or not. */
    public void record(String tenant, String route, long costTokens, boolean admitted) {
        ConcurrentHashMap<RuleScope, Counter> counters = current.get();
        RuleScope key = new RuleScope(tenant, route);
        Counter counter = counters.get(key);
        if (counter == null) {
            counter = counters.computeIfAbsent(key, k -> new Counter());
        }
        counter.offered.add(costTokens);
        if (admitted) {
            counter.admitted.add(costTokens);
        }
    }

    /** Closes the current window and opens the next; returns the closed window's totals. */
    public synchronized Window drain() {
        long now = clock.millis();
        ConcurrentHashMap<RuleScope, Counter> closed = current.getAndSet(new ConcurrentHashMap<>());
        Map<RuleScope, Counts> totals = new HashMap<>(closed.size() * 2);
        closed.forEach((key, counter) -> totals.put(key,
                new Counts(counter.offered.sum(), counter.admitted.sum())));
        Window window = new Window(now - windowStart, totals);
        windowStart = now;
        return window;
    }
}
