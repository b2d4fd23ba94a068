package dev.tollgate.core;

import static dev.tollgate.core.RandomizedCheck.between;
import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** Leasing on a manual clock over an in-memory shared bucket: exact and deterministic. */
class LeasingBucketStoreTest {

    private final ManualClock clock = new ManualClock(1_000_000_000L);
    private final LocalBucketStore shared = new LocalBucketStore(clock);
    private final RecordingSource source = new RecordingSource(shared);

    private LeasingBucketStore leasing(LeasePolicy policy) {
        return new LeasingBucketStore(shared, source, policy, clock);
    }

    private static Decision acquire(BucketStore store, BucketKey key, BucketLimits limits) {
        return store.tryAcquire(key, limits).toCompletableFuture().join();
    }

    /** Tokens left in the shared bucket, read without taking any (a zero-size lease). */
    private long sharedTokens(BucketKey key, BucketLimits limits) {
        return shared.takeUpTo(key, limits, 0).toCompletableFuture().join().tokensLeftMicros()
                / BucketLimits.MICROS_PER_TOKEN;
    }

    private static BucketKey key(String tenant) {
        return new BucketKey(tenant, "route");
    }

    @Test
    void coldKeysMakeOneCallPerRequest() {
        LeasingBucketStore store = leasing(new LeasePolicy(100, 100, 50, 0.5, 1000));
        BucketLimits limits = RateLimitRule.of(1000, 0.001).limits();
        for (int i = 0; i < 50; i++) {
            assertThat(acquire(store, key("cold"), limits).remaining()).isEqualTo(999 - i);
            clock.advanceMillis(10); // 100 requests/s at most: below the threshold
        }
        assertThat(store.perRequestCalls()).isEqualTo(50);
        assertThat(store.leaseCalls()).isZero();
    }

    @Test
    void aHotKeyIsServedFromBatchesSizedToItsRateAndBounded() {
        LeasePolicy policy = new LeasePolicy(100, 100, 50, 0.1, 1000);
        LeasingBucketStore store = leasing(policy);
        BucketLimits limits = RateLimitRule.of(10_000, 1000).limits();
        int admitted = 0;
        for (int ms = 0; ms < 3000; ms++) {
            if (acquire(store, key("hot"), limits).allowed()) {
                admitted++;
            }
            clock.advanceMillis(1);
        }
        assertThat(admitted).isEqualTo(3000);
        // ~1000 requests/s × 100 ms = 100, capped at 50 tokens: one call per 50 requests once hot
        assertThat(source.requested).allMatch(max -> max <= 50 * BucketLimits.MICROS_PER_TOKEN);
        assertThat(source.requested.get(source.requested.size() - 1)).isEqualTo(50 * BucketLimits.MICROS_PER_TOKEN);
        assertThat(store.remoteCalls()).isLessThan(3000 / 50 + 150);
    }

    @Test
    void decisionsMadeFromALeaseSaySoAndNoOthers() {
        LeasingBucketStore store = leasing(new LeasePolicy(100, 100, 50, 0.1, 1000));
        BucketLimits limits = RateLimitRule.of(10_000, 1000).limits();
        int fromLease = 0;
        for (int ms = 0; ms < 2000; ms++) {
            if (acquire(store, key("flagged"), limits).servedFromLease()) {
                fromLease++;
            }
            clock.advanceMillis(1);
        }
        // Every request is either decided from the lease (flagged) or made a call (not flagged).
        assertThat(fromLease).isEqualTo(store.localDecisions()).isPositive();
        assertThat(fromLease + store.perRequestCalls() + store.leaseCalls()).isEqualTo(2000);
        assertThat(acquire(store, key("cold-one"), limits).servedFromLease()).isFalse();
    }

    @Test
    void waitersLeftOverWhenASlowFetchRunsOutShareTheNextFetchInsteadOfCallingEach() {
        HeldSource held = new HeldSource(shared);
        // Always hot; batches of at most 5 requests.
        LeasingBucketStore store = new LeasingBucketStore(shared, held, new LeasePolicy(0, 1000, 5, 1.0, 60_000), clock);
        BucketLimits limits = RateLimitRule.of(1000, 0.001).limits();
        List<CompletableFuture<Decision>> decisions = new ArrayList<>();
        for (int i = 0; i < 30; i++) { // all arrive while the first fetch is still on its way
            decisions.add(store.tryAcquire(key("slow"), limits).toCompletableFuture());
        }
        while (held.releaseOne()) {
            // each released grant serves what it can; the rest wait for the next single fetch
        }
        assertThat(decisions).allMatch(d -> d.isDone() && d.join().allowed());
        assertThat(store.perRequestCalls()).isZero();
        // The first batch is sized to the one request seen so far (1 token), the next ones to 5:
        // 1 + 29 / 5 rounded up.
        assertThat(store.leaseCalls()).isEqualTo(7);
    }

    @Test
    void theCapacityShareBoundsTheBatch() {
        LeasingBucketStore store = leasing(new LeasePolicy(0, 1000, 1000, 0.25, 1000));
        BucketLimits limits = RateLimitRule.of(40, 1).limits();
        for (int i = 0; i < 40; i++) {
            acquire(store, key("share"), limits);
        }
        assertThat(source.requested).isNotEmpty().allMatch(max -> max <= 10 * BucketLimits.MICROS_PER_TOKEN);
    }

    @Test
    void aBucketTooSmallForOneRequestPerBatchIsNeverLeased() {
        LeasingBucketStore store = leasing(new LeasePolicy(0, 100, 50, 0.1, 1000));
        BucketLimits limits = new RateLimitRule(20, 1, 5).limits(); // a tenth of 20 is less than a cost of 5
        assertThat(acquire(store, key("small"), limits).remaining()).isEqualTo(15);
        assertThat(store.leaseCalls()).isZero();
        assertThat(store.perRequestCalls()).isEqualTo(1);
    }

    @Test
    void afterAShortGrantRejectionsAreLocalUntilABatchCouldBeThere() {
        LeasingBucketStore store = leasing(new LeasePolicy(0, 1000, 10, 1.0, 60_000));
        BucketLimits limits = RateLimitRule.of(10, 10).limits(); // one token per 100 ms
        BucketKey key = key("backoff");
        for (int i = 0; i < 20; i++) {
            acquire(store, key, limits); // rate climbs: batches of 1, 2, 3, 4 then what is left
        }
        long callsWhenEmpty = store.leaseCalls();
        Decision rejected = acquire(store, key, limits);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.remaining()).isZero();
        long retry = rejected.retryAfterMillis();
        assertThat(retry).isPositive().isLessThanOrEqualTo(1000); // until a batch (at most 10) is back
        for (int i = 0; i < 100; i++) {
            assertThat(acquire(store, key, limits).allowed()).isFalse();
        }
        assertThat(store.leaseCalls()).isEqualTo(callsWhenEmpty);

        clock.advanceMillis(retry);
        assertThat(acquire(store, key, limits).allowed()).isTrue();
        assertThat(store.leaseCalls()).isEqualTo(callsWhenEmpty + 1);
    }

    @Test
    void decisionsFromALeaseReportTheLeasePlusTheSharedBucket() {
        LeasingBucketStore store = leasing(new LeasePolicy(0, 1000, 10, 1.0, 60_000));
        BucketLimits limits = RateLimitRule.of(100, 1).limits();
        BucketKey key = key("report");
        Decision first = acquire(store, key, limits); // rate 1/s: a batch of one request
        assertThat(first.remaining()).isEqualTo(99);
        for (int i = 0; i < 9; i++) {
            acquire(store, key, limits); // rate climbs to 10/s: a batch of 10
        }
        Decision fromLease = acquire(store, key, limits);
        assertThat(fromLease.allowed()).isTrue();
        assertThat(fromLease.remaining()).isEqualTo(89);
        assertThat(fromLease.retryAfterMillis()).isZero();
        assertThat(fromLease.limit()).isEqualTo(100);
        assertThat(fromLease.resetAfterMillis()).isEqualTo(11_000);
        clock.advanceMillis(2000);
        assertThat(acquire(store, key, limits).remaining()).isEqualTo(90); // 2 tokens refilled, 1 taken
    }

    @Test
    void expiredLeasesAreGivenBack() {
        LeasingBucketStore store = leasing(new LeasePolicy(0, 100, 50, 1.0, 500));
        BucketLimits limits = RateLimitRule.of(100, 0.001).limits();
        BucketKey key = key("expiry");
        for (int i = 0; i < 60; i++) {
            acquire(store, key, limits);
        }
        long held = 100 - 60 - sharedTokens(key, limits);
        assertThat(held).isPositive();

        clock.advanceMillis(499);
        store.returnExpiredLeases();
        assertThat(sharedTokens(key, limits)).isEqualTo(100 - 60 - held);
        clock.advanceMillis(1);
        store.returnExpiredLeases();
        assertThat(sharedTokens(key, limits)).isEqualTo(40);
        assertThat(store.giveBackCalls()).isEqualTo(1);
    }

    @Test
    void idleKeysAreForgottenSoMemoryFollowsTheActiveKeys() {
        LeasingBucketStore store = leasing(new LeasePolicy(100, 100, 50, 0.1, 1000));
        BucketLimits limits = RateLimitRule.of(10, 1).limits();
        for (int i = 0; i < 500; i++) {
            acquire(store, key("tenant-" + i), limits);
        }
        assertThat(store.trackedKeys()).isEqualTo(500);
        clock.advanceMillis(1999);
        acquire(store, key("still-active"), limits); // runs the sweep: nothing idle for 2 s yet
        assertThat(store.trackedKeys()).isEqualTo(501);
        clock.advanceMillis(1001);
        acquire(store, key("still-active"), limits);
        assertThat(store.trackedKeys()).isEqualTo(1);
    }

    @Test
    void closingGivesBackEveryLease() {
        LeasingBucketStore store = leasing(new LeasePolicy(0, 1000, 50, 1.0, 60_000));
        BucketLimits limits = RateLimitRule.of(100, 0.001).limits();
        for (int i = 0; i < 30; i++) {
            acquire(store, key("a"), limits);
            acquire(store, key("b"), limits);
        }
        store.close();
        assertThat(sharedTokens(key("a"), limits)).isEqualTo(70);
        assertThat(sharedTokens(key("b"), limits)).isEqualTo(70);
    }

    @Test
    void newLimitsGiveTheOldLeaseBack() {
        LeasingBucketStore store = leasing(new LeasePolicy(0, 1000, 50, 1.0, 60_000));
        BucketKey key = key("limits");
        for (int i = 0; i < 20; i++) {
            acquire(store, key, RateLimitRule.of(100, 0.001).limits());
        }
        Decision d = acquire(store, key, new RateLimitRule(100, 0.001, 2).limits());
        assertThat(d.allowed()).isTrue();
        assertThat(store.giveBackCalls()).isEqualTo(1);
        assertThat(d.remaining()).isEqualTo(78);
    }

    /**
     * Two instances, one key. The rule goes from 100 tokens at 100/s to 100 at 0.001/s while the first
     * holds unspent leased tokens; the second drains the bucket under the new rule; the first's sweep
     * gives them back, with the grant's limits, once they have been held for the TTL. They are worth
     * what was given back to the second: not the old rate's refill since the drain, and not lost.
     */
    @Test
    void aKeyWhoseLeaseFetchWasCancelledIsLeasedAgain() {
        HeldSource held = new HeldSource(shared);
        LeasingBucketStore store = new LeasingBucketStore(shared, held, new LeasePolicy(0, 100, 10, 0.5, 1000), clock);
        BucketKey key = key("cancelled");
        BucketLimits limits = RateLimitRule.of(100, 0.001).limits();
        // The first request fetches a lease; its caller gives up before Redis answers (a client gone).
        store.tryAcquire(key, limits).toCompletableFuture().cancel(true);
        assertThat(held.releaseOne()).isTrue(); // the grant arrives after all
        // The key's bookkeeping saw the grant, so later requests fetch again (or are served from the
        // lease) instead of waiting forever for a fetch that never ends.
        for (int i = 0; i < 20; i++) {
            CompletableFuture<Decision> d = store.tryAcquire(key, limits).toCompletableFuture();
            while (!d.isDone() && held.releaseOne()) {
                // a new fetch: let it through
            }
            assertThat(d).as("request %d", i).isCompleted();
            assertThat(d.join().allowed()).isTrue();
        }
        assertThat(store.leaseCalls()).isGreaterThan(1);
    }

    @Test
    void leasedTokensGivenBackAfterARuleChangeAreWorthWhatWasReturned() {
        for (long ttl : new long[] {501, 1_001, 10_000}) {
            BucketKey key = key("rule-change-" + ttl);
            LeasingBucketStore holder = leasing(new LeasePolicy(0, 500, 10, 1.0, ttl));
            LeasingBucketStore drainer = leasing(new LeasePolicy(1_000_000, 100, 10, 1.0, 60_000));
            BucketLimits before = RateLimitRule.of(100, 100).limits();
            BucketLimits after = RateLimitRule.of(100, 0.001).limits();
            for (int i = 0; i < 20; i++) {
                assertThat(acquire(holder, key, before).allowed()).isTrue(); // batches grow to 9
            }
            long held = 100 - 20 - sharedTokens(key, after);
            assertThat(held).isEqualTo(6);
            int drained = 0;
            while (acquire(drainer, key, after).allowed()) {
                drained++;
            }
            assertThat(drained).isEqualTo(74);

            clock.advanceMillis(ttl);
            holder.returnExpiredLeases();
            assertThat(holder.giveBackCalls()).as("TTL %d ms", ttl).isEqualTo(1);
            int admitted = 0;
            while (acquire(drainer, key, after).allowed()) {
                admitted++;
            }
            assertThat(admitted).as("admitted after a give-back %d ms after the rule change", ttl).isEqualTo(6);
        }
    }

    @Test
    void aGiveBackNeverFillsTheBucketAboveItsCapacity() {
        BucketLimits limits = RateLimitRule.of(10, 1).limits();
        BucketKey key = key("cap");
        shared.takeUpTo(key, limits, 5 * BucketLimits.MICROS_PER_TOKEN);
        clock.advanceMillis(3000); // refilled to 8
        shared.giveBack(key, limits, 5 * BucketLimits.MICROS_PER_TOKEN);
        assertThat(sharedTokens(key, limits)).isEqualTo(10);
    }

    @Test
    void policiesRefuseBadValuesAndNameThem() {
        assertThatThrownBy(() -> new LeasePolicy(-1, 100, 50, 0.1, 1000)).hasMessageContaining("-1.0");
        assertThatThrownBy(() -> new LeasePolicy(Double.NaN, 100, 50, 0.1, 1000)).hasMessageContaining("NaN");
        assertThatThrownBy(() -> new LeasePolicy(100, 0, 50, 0.1, 1000)).hasMessageContaining("leaseMillis");
        assertThatThrownBy(() -> new LeasePolicy(100, 100, 0, 0.1, 1000)).hasMessageContaining("was 0");
        assertThatThrownBy(() -> new LeasePolicy(100, 100, 50, 1.5, 1000)).hasMessageContaining("1.5");
        assertThatThrownBy(() -> new LeasePolicy(100, 100, 50, 0, 1000)).hasMessageContaining("maxCapacityShare");
        assertThatThrownBy(() -> new LeasePolicy(100, 100, 50, 0.1, 99)).hasMessageContaining("was 99");
    }

    /**
     * N instances lease one key from one shared bucket under random load. Whatever the load: the
     * cluster never admits more than the bucket gave out ({@code C + R × T}); in any window of
     * {@code w} ms at most {@code C + R × w + N × B}; and under overload no less than
     * {@code C + R × T − (N + 1) × B}.
     */
    @Test
    void clusterWideAdmissionsStayWithinTheStatedBounds() {
        forAll(60, random -> {
            ManualClock time = new ManualClock(0);
            LocalBucketStore bucket = new LocalBucketStore(time);
            int instances = (int) between(random, 1, 6);
            long capacity = between(random, 1, 400);
            long perSecond = between(random, 1, 3000);
            BucketLimits limits = RateLimitRule.of(capacity, perSecond).limits();
            long leaseMillis = between(random, 1, 300);
            LeasePolicy policy = new LeasePolicy(between(random, 0, 500), leaseMillis,
                    between(random, 1, 100), 0.05 + random.nextDouble() * 0.95, between(random, leaseMillis, 2000));
            List<LeasingBucketStore> stores = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                stores.add(new LeasingBucketStore(bucket, bucket, policy, time));
            }
            int millis = (int) between(random, 500, 4000);
            boolean overload = random.nextBoolean();
            int[] admittedAt = new int[millis];
            BucketKey key = new BucketKey("tenant", "route");
            for (int ms = 0; ms < millis; ms++) {
                for (LeasingBucketStore store : stores) {
                    int requests = overload ? 1 + random.nextInt(4) : random.nextInt(3) == 0 ? 1 : 0;
                    for (int r = 0; r < requests; r++) {
                        if (store.tryAcquire(key, limits).toCompletableFuture().join().allowed()) {
                            admittedAt[ms]++;
                        }
                    }
                }
                time.advanceMillis(1);
            }
            long batch = policy.maxBatchMicros(limits) / BucketLimits.MICROS_PER_TOKEN;
            long total = 0;
            for (int a : admittedAt) {
                total += a;
            }
            String what = instances + " instances, C=" + capacity + ", R=" + perSecond + "/s, " + policy
                    + ", B=" + batch + ", " + millis + " ms, overload=" + overload;
            // Refill counts from the first request at ms 0 to the last at ms millis - 1.
            assertThat(total).as(what).isLessThanOrEqualTo(capacity + perSecond * (millis - 1) / 1000);
            for (int w : new int[] {1, 10, 100, 1000}) {
                long window = 0;
                for (int ms = 0; ms < millis; ms++) {
                    window += admittedAt[ms] - (ms >= w ? admittedAt[ms - w] : 0);
                    assertThat(window).as("%s, window of %d ms ending at %d", what, w, ms)
                            .isLessThanOrEqualTo(capacity + perSecond * (w - 1) / 1000 + instances * batch);
                }
            }
            if (overload && perSecond <= instances * 1000L && capacity >= batch + 2 * perSecond / 1000 + 2) {
                // Offered at least 1000/s per instance, so at least the rate: what is not admitted
                // sits in leases (N × B) or gathers in the bucket during a backoff (B). (A bucket
                // hardly larger than a batch plus a millisecond's refill loses tokens to its cap
                // between requests, with or without leases: no lower bound there.)
                assertThat(total).as(what).isGreaterThanOrEqualTo(
                        capacity + perSecond * (millis - 1) / 1000 - (instances + 1L) * batch);
            }
        });
    }

    /** Records the batch sizes asked for. */
    /** Grants only when told to, in order: a remote source that is slow to answer. */
    private static final class HeldSource implements TokenLeaseSource {
        private final TokenLeaseSource delegate;
        private final java.util.ArrayDeque<Runnable> pending = new java.util.ArrayDeque<>();

        HeldSource(TokenLeaseSource delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletionStage<LeaseGrant> takeUpTo(BucketKey key, BucketLimits limits, long maxMicros) {
            CompletableFuture<LeaseGrant> grant = new CompletableFuture<>();
            pending.add(() -> delegate.takeUpTo(key, limits, maxMicros).thenAccept(grant::complete));
            return grant;
        }

        @Override
        public CompletionStage<Void> giveBack(BucketKey key, BucketLimits limits, long micros) {
            return delegate.giveBack(key, limits, micros);
        }

        boolean releaseOne() {
            Runnable next = pending.poll();
            if (next == null) {
                return false;
            }
            next.run();
            return true;
        }
    }

    private static final class RecordingSource implements TokenLeaseSource {
        final List<Long> requested = new ArrayList<>();
        private final TokenLeaseSource delegate;

        RecordingSource(TokenLeaseSource delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletionStage<LeaseGrant> takeUpTo(BucketKey key, BucketLimits limits, long maxMicros) {
            requested.add(maxMicros);
            return delegate.takeUpTo(key, limits, maxMicros);
        }

        @Override
        public CompletionStage<Void> giveBack(BucketKey key, BucketLimits limits, long micros) {
            return delegate.giveBack(key, limits, micros);
        }
    }
}
