package dev.tollgate.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A {@link SerialScheduler} on a {@link ManualClock}: nothing runs until the test calls
 * {@link #runDue()} or {@link #advance(Duration)}, which run the tasks that fall due in the order of
 * their due times (then of submission), on the calling thread, with the clock set to each task's due
 * time. Tasks may be submitted from any thread, and the clock moved by any thread (it is never
 * moved back).
 */
public final class ManualScheduler implements SerialScheduler {

    private record Entry(long dueNanos, long sequence, Runnable task) {
    }

    private final ManualClock clock;
    private final PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) -> a.dueNanos != b.dueNanos
            ? Long.compare(a.dueNanos, b.dueNanos)
            : Long.compare(a.sequence, b.sequence));
    private long sequence;
    private boolean closed;

    public ManualScheduler() {
        this(new ManualClock());
    }

    public ManualScheduler(ManualClock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized void execute(Runnable task) {
        schedule(task, Duration.ZERO);
    }

    @Override
    public synchronized void schedule(Runnable task, Duration delay) {
        if (!closed) {
            queue.add(new Entry(clock.nanoTime() + delay.toNanos(), sequence++, task));
        }
    }

    @Override
    public ManualClock clock() {
        return clock;
    }

    /** Runs every task due now, including those that the tasks run submit for now. */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /** Moves the clock by {@code duration}, running each task when the clock reaches its due time. */
    public void advance(Duration duration) {
        long target = clock.nanoTime() + duration.toNanos();
        Entry next;
        while ((next = pollDue(target)) != null) {
            long wait = next.dueNanos - clock.nanoTime();
            if (wait > 0) {
                clock.advance(Duration.ofNanos(wait));
            }
            next.task.run();
        }
        long behind = target - clock.nanoTime();
        if (behind > 0) { // a task, or another thread, may have moved the clock further meanwhile
            clock.advance(Duration.ofNanos(behind));
        }
    }

    /** Delays of the tasks waiting, from now: for assertions on what is scheduled. */
    public synchronized List<Duration> pendingDelays() {
        List<Duration> delays = new ArrayList<>();
        for (Entry e : queue) {
            delays.add(Duration.ofNanos(e.dueNanos - clock.nanoTime()));
        }
        delays.sort(null);
        return delays;
    }

    private synchronized Entry pollDue(long target) {
        Entry head = queue.peek();
        return head != null && head.dueNanos <= target ? queue.poll() : null;
    }

    @Override
    public synchronized void close() {
        closed = true;
        queue.clear();
    }
}
