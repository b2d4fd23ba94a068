package dev.tollgate.redis;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Gathers the items (requests for a decision) made on one Netty event loop into batches, and hands
 * each batch to a sender, so that one script call decides many requests. Shared by
 * {@link RedisBucketStore} and {@link MultiLimitScript}.
 *
 * <p>A batch starts with the first item a loop adds and is sent at the end of a later turn of that
 * loop (a turn: the loop reads what its sockets hold, then runs its tasks):
 * <ul>
 *   <li>at the end of the first turn that added nothing to it: under light load that is the very
 *       next turn, which finds nothing more to read and costs microseconds;</li>
 *   <li>at the latest at the end of the {@code waitTurns}-th turn after the one it started in, or as
 *       soon as it holds {@code maxBatch} items.</li>
 * </ul>
 * So a batch waits only while its loop keeps reading requests, which is when a busy gateway has more
 * decisions coming. The wait is bounded by turns of the loop, never by a timer. Items added from any
 * other thread are sent alone, at once. The sender splits a batch further if it must (by cluster
 * slot, by the most one call takes).
 */
final class EventLoopBatcher<T> {

    private final int waitTurns;
    private final int maxBatch;
    private final Consumer<List<T>> sender;
    private final FastThreadLocal<LoopBatch> batches = new FastThreadLocal<>();

    /**
     * @param waitTurns turns of its loop, after the one it started in, a batch may wait while each
     *                  turn brings items; 0 sends every batch at the end of the turn it started in
     * @param maxBatch  items at which a batch is sent without waiting further
     * @param sender    sends a batch (called on the batch's loop, or on the adding thread off a loop)
     */
    EventLoopBatcher(int waitTurns, int maxBatch, Consumer<List<T>> sender) {
        if (waitTurns < 0 || maxBatch < 1) {
            throw new IllegalArgumentException("waitTurns >= 0 and maxBatch >= 1, were " + waitTurns + ", " + maxBatch);
        }
        this.waitTurns = waitTurns;
        this.maxBatch = maxBatch;
        this.sender = sender;
    }

    /** Adds {@code item} to its loop's batch; off an event loop, sends it alone now. */
    void add(T item) {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (loop != null && loop.inEventLoop()) {
            batchOf(loop).add(item);
        } else {
            sender.accept(List.of(item));
        }
    }

    private LoopBatch batchOf(EventExecutor loop) {
        LoopBatch batch = batches.get();
        if (batch == null || batch.loop != loop) {
            batch = new LoopBatch(loop);
            batches.set(batch);
        }
        return batch;
    }

    /** Items of one event loop waiting to be sent together. Used on that loop only. */
    private final class LoopBatch implements Runnable {

        private final EventExecutor loop;
        private List<T> waiting = new ArrayList<>();
        private boolean flushQueued;
        /** Turns this batch has waited past the one it started in. */
        private int turnsWaited;
        /** How many items it held when it last decided to wait. */
        private int sizeWhenLastLooked;

        LoopBatch(EventExecutor loop) {
            this.loop = loop;
        }

        void add(T item) {
            waiting.add(item);
            if (!flushQueued) {
                flushQueued = true;
                turnsWaited = 0;
                sizeWhenLastLooked = 0;
                try {
                    loop.execute(this); // runs once the loop has handled what it read this turn
                } catch (RejectedExecutionException shuttingDown) {
                    run(); // the loop takes no more tasks: send what waits now
                }
            }
        }

        /** At the end of a turn: wait one more turn if this one brought items, else send. */
        @Override
        public void run() {
            int size = waiting.size();
            if (size > sizeWhenLastLooked && turnsWaited < waitTurns && size < maxBatch && waitOneMoreTurn()) {
                turnsWaited++;
                sizeWhenLastLooked = size;
                return;
            }
            flushQueued = false;
            List<T> batch = waiting;
            waiting = new ArrayList<>();
            sender.accept(batch);
        }

        /**
         * Runs this again at the end of the loop's next turn: a task scheduled from a running task is
         * due only once the loop has been back to its sockets (the same property {@link ScriptCalls}
         * relies on to read a late reply before failing a call).
         */
        private boolean waitOneMoreTurn() {
            try {
                loop.schedule(this, 0, TimeUnit.NANOSECONDS);
                return true;
            } catch (RejectedExecutionException shuttingDown) {
                return false;
            }
        }
    }
}
