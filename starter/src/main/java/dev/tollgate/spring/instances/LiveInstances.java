package dev.tollgate.spring.instances;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.SerialScheduler;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many gateway instances share the limits: the N the local fallback divides every rule by.
 * Each instance announces itself in every {@link HeartbeatStore} (Redis, and PostgreSQL when the
 * rules live there) every heartbeat interval, each store on a thread of its own, and N is taken from
 * the first of these sources that has an answer:
 *
 * <ol>
 *   <li>the first store, in the order given, whose last beat succeeded within the time-to-live
 *       ({@code redis-heartbeat}, then {@code postgresql-heartbeat});</li>
 *   <li>the last count learnt from any store since this instance started ({@code last-learnt});</li>
 *   <li>the count saved on disk by an earlier run ({@code saved}, see {@link SavedInstanceCount}): the
 *       largest count learnt in the last {@link #SAVED_PEAK_WINDOW} before that run stopped;</li>
 *   <li>the configured floor ({@code configured}).</li>
 * </ol>
 *
 * and never below the configured floor ({@code tollgate.fallback.instances}): N is
 * {@code max(floor, source)}.
 *
 * <p>Bound: with traffic spread evenly the instances admit together {@code trueN / N} times a rule
 * while they fall back. A heartbeat count is high for at most the time-to-live after an instance
 * stops (it is still counted), which under-admits; it is low while instances are starting and have
 * not beaten yet (at most one heartbeat interval each), which over-admits by {@code trueN / N}
 * meanwhile. A last-learnt or saved count is as old as the outage or the restart; the floor bounds
 * how far a shrunken count can take the cluster over: never more than {@code trueN / floor}.
 */
public final class LiveInstances implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LiveInstances.class);

    /** The count saved on disk is the largest learnt within this window (see {@link #remember}). */
    static final Duration SAVED_PEAK_WINDOW = Duration.ofMinutes(5);

    /** A count and where it came from. */
    public record Count(int instances, String source) {
    }

    /** What one store last said. */
    private static final class StoreState {
        final HeartbeatStore store;
        final SerialScheduler scheduler;
        volatile int count; // 0 = never answered
        volatile long answeredAtNanos;
        volatile boolean failing;

        StoreState(HeartbeatStore store, SerialScheduler scheduler) {
            this.store = store;
            this.scheduler = scheduler;
        }
    }

    private final List<StoreState> stores = new ArrayList<>();
    private final SavedInstanceCount saved;
    private final int floor;
    private final Duration interval;
    private final long ttlNanos;
    private final MonotonicClock clock;
    private final String instanceId;
    private final int savedAtStart; // 0 = none
    private volatile int lastLearnt; // 0 = never learnt
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Count lastReported;
    private int lastSaved;
    private int peak;
    private long peakSeenNanos;

    /**
     * @param storesInOrder where to beat, the most trusted first
     * @param saved         where the count learnt is kept across restarts; null for nowhere
     * @param floor         the configured floor of N
     * @param schedulers    a scheduler for each store's beats, by thread name; their clocks must agree
     */
    public LiveInstances(List<HeartbeatStore> storesInOrder, SavedInstanceCount saved, int floor, Duration interval,
                         Duration ttl, Function<String, SerialScheduler> schedulers) {
        if (storesInOrder.isEmpty()) {
            throw new IllegalArgumentException("at least one heartbeat store is needed");
        }
        for (HeartbeatStore store : storesInOrder) {
            stores.add(new StoreState(store, schedulers.apply("tollgate-" + store.name())));
        }
        this.saved = saved;
        this.floor = floor;
        this.interval = interval;
        this.ttlNanos = ttl.toNanos();
        this.clock = stores.get(0).scheduler.clock();
        this.instanceId = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID();
        OptionalInt fromDisk = saved == null ? OptionalInt.empty() : saved.read();
        this.savedAtStart = fromDisk.orElse(0);
        this.lastSaved = savedAtStart;
        if (savedAtStart > 0) {
            log.info("Instance count saved by an earlier run: {} (used until a heartbeat answers)", savedAtStart);
        }
    }

    /**
     * Beats in every store now, then every heartbeat interval. Once: a second call (an application
     * that starts its own instance, which Tollgate's lifecycle starts too) changes nothing.
     */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        for (StoreState state : stores) {
            state.scheduler.execute(() -> beatPeriodically(state));
        }
    }

    /** The instance count the fallback divides by (see the class comment for where it comes from). */
    public int count() {
        return current().instances();
    }

    /** {@link #count()} with its source, for health. */
    public Count current() {
        Count found = fromSources();
        return found.instances() < floor ? new Count(floor, "configured") : found;
    }

    /** The first source with an answer, the floor not applied yet. */
    private Count fromSources() {
        long now = clock.nanoTime();
        for (StoreState state : stores) {
            int n = state.count;
            if (n > 0 && !state.failing && now - state.answeredAtNanos <= ttlNanos) {
                return new Count(n, state.store.name());
            }
        }
        if (lastLearnt > 0) {
            return new Count(lastLearnt, "last-learnt");
        }
        if (savedAtStart > 0) {
            return new Count(savedAtStart, "saved");
        }
        return new Count(floor, "configured");
    }

    /** Whether a heartbeat has answered since this instance started. */
    public boolean isLearnt() {
        return lastLearnt > 0;
    }

    public String instanceId() {
        return instanceId;
    }

    private void beatPeriodically(StoreState state) {
        try {
            beat(state);
        } finally {
            state.scheduler.schedule(() -> beatPeriodically(state), interval);
        }
    }

    private void beat(StoreState state) {
        if (state.store.ready()) {
            askStore(state);
        }
        remember(fromSources());
        Count now = current();
        Count before = lastReported;
        if (before == null || before.instances() != now.instances()) {
            log.info("Live gateway instances: {} (from {})", now.instances(), now.source());
        }
        lastReported = now;
    }

    private void askStore(StoreState state) {
        try {
            int n = state.store.beat(instanceId);
            state.count = n;
            state.answeredAtNanos = clock.nanoTime();
            if (state.failing) {
                log.info("Heartbeats answer again in {}", state.store.name());
            }
            state.failing = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            boolean first = !state.failing;
            state.failing = true;
            if (first) {
                log.info("Heartbeat in {} failed ({}); the instance count now comes from {}", state.store.name(),
                        e.toString(), current().source());
            }
        }
    }

    /**
     * Keeps the count of the most trusted store that answers: in memory as it is, and on disk as the
     * largest count learnt within {@link #SAVED_PEAK_WINDOW}, so that the instances that stop last
     * when a whole fleet stops (and see it shrink on their way out) do not save a count that is only
     * true for their last seconds.
     */
    private void remember(Count fromSources) {
        boolean fromStore = stores.stream().anyMatch(s -> s.store.name().equals(fromSources.source()));
        if (!fromStore) {
            return;
        }
        int n = fromSources.instances();
        lastLearnt = n;
        if (saved != null) {
            synchronized (this) {
                long now = clock.nanoTime();
                if (n >= peak || now - peakSeenNanos >= SAVED_PEAK_WINDOW.toNanos()) {
                    peak = n;
                    peakSeenNanos = now;
                }
                if (peak != lastSaved) {
                    saved.save(peak);
                    lastSaved = peak;
                }
            }
        }
    }

    /** Stops the heartbeats and takes this instance off every store; only the first call does anything. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (StoreState state : stores) {
            state.scheduler.close();
        }
        for (StoreState state : stores) {
            state.store.leave(instanceId);
        }
    }
}
