package dev.tollgate.spring.identity;

import dev.tollgate.core.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts failed authentications (401 answers) per client address group on this instance, and says
 * when an address has spent its budget: {@code limit} failures in a burst, refilled evenly over
 * {@code period} (a token bucket kept as one number per address, the time at which it would be full
 * again, as in the generic cell rate algorithm). Checked before any key is looked up, so a
 * key-guessing flood is refused with the cost of one hash lookup.
 *
 * <p>Local, not in Redis: a check costs no network call and works while Redis is down, and a failure is
 * counted where it happened. The price: with {@code N} instances behind a load balancer that spreads an
 * address's requests, the address may fail up to {@code N × limit} times in a burst (and
 * {@code N × limit} per period after), where one Redis count would allow {@code limit}; a single
 * instance never more than {@code limit + limit × t / period} in any span {@code t}. The point is to
 * make guessing keys slow and cheap to refuse, which {@code N×} still does.
 *
 * <p>Memory: at most {@code maxAddresses} entries (one {@code ConcurrentHashMap} node, the group's
 * text and an {@code AtomicLong}: about 150 bytes, so 100,000 addresses take about 15 MB). A failure
 * from a further address is not counted while the map is full; {@link #evictRefilled} (run every
 * period) drops addresses whose bucket is full again. So a million distinct addresses keep the heap
 * at the bound, and the addresses beyond it are counted once earlier ones have refilled: the limit
 * fails open past the bound rather than growing without end.
 */
public final class AuthFailureLimiter {

    private final long intervalNanos;
    private final long periodNanos;
    private final int maxAddresses;
    private final MonotonicClock clock;
    private final ConcurrentHashMap<String, AtomicLong> fullAt = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    private final LongAdder refused = new LongAdder();

    /**
     * @param limit        failures an address may have in a burst (at least 1)
     * @param period       the time in which {@code limit} failures refill
     * @param maxAddresses addresses tracked at once
     */
    public AuthFailureLimiter(int limit, Duration period, int maxAddresses, MonotonicClock clock) {
        if (limit < 1 || maxAddresses < 1 || period.toNanos() < 1) {
            throw new IllegalArgumentException("limit, maxAddresses and period (in ns) at least 1");
        }
        this.periodNanos = period.toNanos();
        this.intervalNanos = Math.max(1, periodNanos / limit);
        this.maxAddresses = maxAddresses;
        this.clock = clock;
    }

    /**
     * Milliseconds until {@code group} may fail once more, or 0 if it may now. Rounded up, so a
     * caller retrying after that long is let through.
     */
    public long blockedForMillis(String group) {
        AtomicLong entry = fullAt.get(group);
        if (entry == null) {
            return 0;
        }
        long at = entry.get();
        if (at == Long.MIN_VALUE) {
            return 0; // being created: no failure counted yet
        }
        long wait = at - clock.nanoTime() - (periodNanos - intervalNanos);
        if (wait <= 0) {
            return 0;
        }
        refused.increment();
        return (wait + 999_999) / 1_000_000;
    }

    /** Counts one failed authentication of {@code group}. */
    public void failed(String group) {
        AtomicLong entry = fullAt.get(group);
        if (entry == null) {
            if (size.get() >= maxAddresses) {
                return; // full: fail open rather than grow (see the class comment)
            }
            AtomicLong created = new AtomicLong(Long.MIN_VALUE);
            entry = fullAt.putIfAbsent(group, created);
            if (entry == null) {
                size.incrementAndGet();
                entry = created;
            }
        }
        long now = clock.nanoTime();
        entry.getAndUpdate(at -> (at == Long.MIN_VALUE || at - now < 0 ? now : at) + intervalNanos);
    }

    /** Drops the addresses whose budget has refilled entirely: they are as if never seen. */
    public void evictRefilled() {
        long now = clock.nanoTime();
        fullAt.forEach((group, entry) -> {
            long at = entry.get();
            if (at != Long.MIN_VALUE && at - now <= 0 && fullAt.remove(group, entry)) {
                size.decrementAndGet();
            }
        });
    }

    /** Addresses tracked now. */
    public int tracked() {
        return size.get();
    }

    /** Requests refused so far because their address was past its budget ({@link #blockedForMillis} above 0). */
    public long refused() {
        return refused.sum();
    }
}
