package dev.tollgate.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The per-instance lease state of a leasing store, one entry per key, and its housekeeping: shared by
 * {@link LeasingBucketStore} (a {@code KeyLease} per bucket key) and the multi-limit path's
 * {@code MultiLimitLeases} (a lease per charge set), so that both sweep, forget and give back alike.
 *
 * <p>Why it sweeps: a lease's unspent tokens are held out of the shared bucket, so a key that goes quiet
 * must give them back after the TTL even if no request for it comes again; and every key seen gets an
 * entry (its rate meter), so idle entries must be forgotten or the map grows with every key ever seen.
 * {@link #sweepIfDue} runs the sweep from the request path at most once per {@code sweepEveryMillis}
 * (a lease's expiry is thus checked at most that late, the bound the stores document); a scheduler may
 * call {@link #sweep} as well. What expiring and being idle mean, and how tokens go back, is each
 * lease's own business ({@link Sweep}, {@link Release}).
 *
 * <p>Thread-safe: entries are created, swept and removed concurrently with lookups. A swept lease
 * retires itself (answers its next request with a retry), so a request that looked it up just before
 * it was removed looks the key up again and gets a fresh entry.
 *
 * @param <K> the key (a bucket key, a charge set)
 * @param <L> the lease state kept for it
 */
public final class LeaseTable<K, L> {

    /** Gives back what a lease held past its end; true when the lease retired and is to be forgotten. */
    @FunctionalInterface
    public interface Sweep<K, L> {
        boolean sweep(K key, L lease, long nowMillis);
    }

    /** Gives back everything a lease holds (on close), handing each call sent to {@code sent}. */
    @FunctionalInterface
    public interface Release<K, L> {
        void release(K key, L lease, Consumer<CompletionStage<?>> sent);
    }

    private final ConcurrentHashMap<K, L> leases = new ConcurrentHashMap<>();
    private final MonotonicClock clock;
    private final long sweepEveryMillis;
    private final AtomicLong nextSweepMillis;
    private final Sweep<K, L> sweep;
    private final Release<K, L> release;

    /**
     * @param sweepEveryMillis how often {@link #sweepIfDue} sweeps: the lease TTL; the first sweep is
     *                         due that long after construction
     */
    public LeaseTable(MonotonicClock clock, long sweepEveryMillis, Sweep<K, L> sweep, Release<K, L> release) {
        this.clock = clock;
        this.sweepEveryMillis = sweepEveryMillis;
        this.nextSweepMillis = new AtomicLong(clock.millis() + sweepEveryMillis);
        this.sweep = sweep;
        this.release = release;
    }

    /** The lease kept for {@code key}, or null. */
    public L get(K key) {
        return leases.get(key);
    }

    /** The lease kept for {@code key}, made by {@code create} (once, under the map's lock) if none is. */
    public L computeIfAbsent(K key, Function<? super K, ? extends L> create) {
        return leases.computeIfAbsent(key, create);
    }

    /** Forgets {@code lease}, if it is still the one kept for {@code key} (a retired one, say). */
    public void remove(K key, L lease) {
        leases.remove(key, lease);
    }

    /** Sweeps if {@code sweepEveryMillis} have passed since the last sweep from here; one caller wins. */
    public void sweepIfDue(long nowMillis) {
        long due = nextSweepMillis.get();
        if (nowMillis >= due && nextSweepMillis.compareAndSet(due, nowMillis + sweepEveryMillis)) {
            sweep();
        }
    }

    /** Runs {@link Sweep} on every lease, as of now, and forgets those that retired. */
    public void sweep() {
        long now = clock.millis();
        leases.forEach((key, lease) -> {
            if (sweep.sweep(key, lease, now)) {
                leases.remove(key, lease);
            }
        });
    }

    /**
     * Runs {@link Release} on every lease, then waits for the calls sent to complete. A call that fails
     * is not retried: what it carried is lost, within the owner's documented bound (one batch per key).
     */
    public void releaseAll() {
        List<CompletableFuture<?>> calls = new ArrayList<>();
        leases.forEach((key, lease) -> release.release(key, lease, call -> calls.add(call.toCompletableFuture())));
        try {
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
        } catch (RuntimeException e) {
            // Lost: bounded by one batch per key, see the owner's class comment.
        }
    }

    /** Keys with an entry right now: each has a rate meter, maybe a lease; idle ones are forgotten. */
    public int size() {
        return leases.size();
    }

    /** The leases kept right now (a live, read-only view). */
    public Collection<L> leases() {
        return Collections.unmodifiableCollection(leases.values());
    }
}
