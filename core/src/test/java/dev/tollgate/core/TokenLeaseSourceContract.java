package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What every {@link TokenLeaseSource} must do with the buckets its {@link BucketStore} twin decides
 * on: the in-memory one ({@link LocalBucketStore}) and the Redis scripts must give the same answers.
 * Subclasses say how to reach both and how to make time pass for a bucket without sleeping.
 *
 * <p>Stores on a real clock (Redis) keep running while a test runs, so the tests use slow refill
 * rates, where the time a test takes refills well under one token, and count whole tokens.
 */
public abstract class TokenLeaseSourceContract {

    protected static final long M = BucketLimits.MICROS_PER_TOKEN;
    private static final AtomicInteger TENANTS = new AtomicInteger();

    /** The lease source under test. */
    protected abstract TokenLeaseSource source();

    /** The per-request store on the same buckets. */
    protected abstract BucketStore store();

    /** Makes {@code millis} pass for the bucket of {@code key} (and possibly for others). */
    protected abstract void advance(BucketKey key, long millis);

    protected static BucketKey freshKey() {
        return new BucketKey("lease-contract-" + TENANTS.incrementAndGet() + "-" + System.nanoTime(), "route");
    }

    protected LeaseGrant lease(BucketKey key, BucketLimits limits, long tokens) {
        return source().takeUpTo(key, limits, tokens * M).toCompletableFuture().join();
    }

    protected void giveBack(BucketKey key, BucketLimits limits, long tokens) {
        source().giveBack(key, limits, tokens * M).toCompletableFuture().join();
    }

    /** Micro-tokens the bucket holds now under {@code limits}, read by a lease of nothing. */
    protected long microsHeld(BucketKey key, BucketLimits limits) {
        return source().takeUpTo(key, limits, 0).toCompletableFuture().join().tokensLeftMicros();
    }

    /** Requests admitted one by one under {@code limits} until the first rejection. */
    protected int admittedUntilRejected(BucketKey key, BucketLimits limits) {
        int admitted = 0;
        while (store().tryAcquire(key, limits).toCompletableFuture().join().allowed()) {
            admitted++;
            if (admitted > 100_000) {
                throw new AssertionError("no rejection after " + admitted + " requests");
            }
        }
        return admitted;
    }

    @Test
    void aGiveBackAddsWhatWasReturnedButNeverAboveTheCapacity() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(10, 0.001).limits();
        lease(key, limits, 8);
        giveBack(key, limits, 3);
        assertThat(microsHeld(key, limits) / M).isEqualTo(5);
        giveBack(key, limits, 30);
        assertThat(microsHeld(key, limits)).isEqualTo(10 * M);
    }

    @Test
    void aGiveBackToAMissingBucketLeavesItFull() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(10, 0.001).limits();
        giveBack(key, limits, 3);
        assertThat(admittedUntilRejected(key, limits)).isEqualTo(10);
    }

    /**
     * With the rate unchanged, a give-back that adds to the bucket as last written is worth what
     * refilling to now and then adding would be: 40 tokens, 10 s at 1/s, 5 given back, 20 s more.
     */
    @Test
    void whileTheRuleStandsAGiveBackIsWorthWhatRefillThenAddWouldBe() {
        BucketKey key = freshKey();
        BucketLimits limits = RateLimitRule.of(100, 1).limits();
        lease(key, limits, 60);
        advance(key, 10_000);
        giveBack(key, limits, 5);
        advance(key, 20_000);
        assertThat(microsHeld(key, limits) / M).isEqualTo(40 + 10 + 5 + 20);

        // The same when refill alone would already have filled it: the cap applies once, at the end.
        BucketKey full = freshKey();
        lease(full, limits, 60);
        advance(full, 50_000);
        giveBack(full, limits, 20);
        assertThat(microsHeld(full, limits)).isEqualTo(100 * M);
        assertThat(admittedUntilRejected(full, limits)).isEqualTo(100);
    }

    /**
     * The rule goes from 100 tokens at 100/s to 100 at 0.001/s while one instance holds 9 unspent
     * leased tokens; another instance drains the bucket under the new rule; the 9 come back with the
     * grant's (old) limits some time later. They must be worth 9 tokens, not the old rate's refill
     * since the drain (59 after 501 ms), and must not be lost either (after 1,001 ms, when the old
     * rate would have filled the bucket).
     */
    @Test
    void tokensGivenBackHalfASecondAfterTheRateFellAreWorthWhatWasReturned() {
        assertTokensGivenBackAfterTheRateFellAreWorthNine(501);
    }

    @Test
    void tokensGivenBackAfterTheOldRateWouldHaveFilledTheBucketAreWorthWhatWasReturned() {
        assertTokensGivenBackAfterTheRateFellAreWorthNine(1_001);
    }

    private void assertTokensGivenBackAfterTheRateFellAreWorthNine(long delayMillis) {
        BucketKey key = freshKey();
        BucketLimits before = RateLimitRule.of(100, 100).limits();
        BucketLimits after = RateLimitRule.of(100, 0.001).limits();
        assertThat(lease(key, before, 9).grantedMicros()).isEqualTo(9 * M);
        assertThat(admittedUntilRejected(key, after)).isEqualTo(91);
        advance(key, delayMillis);
        giveBack(key, before, 9);
        assertThat(admittedUntilRejected(key, after)).isEqualTo(9);
    }

    /**
     * The other way round: the rate rose from 0.001/s to 1/s. The bucket refills from the last
     * write at the new rate, the tokens given back come on top: 10 s give 10 tokens, plus the 9
     * (plus what was left below one token after the drain, so 19 or 20).
     */
    @Test
    void tokensGivenBackAfterTheRateRoseAddToTheNewRatesRefill() {
        BucketKey key = freshKey();
        BucketLimits before = RateLimitRule.of(100, 0.001).limits();
        BucketLimits after = RateLimitRule.of(100, 1).limits();
        lease(key, before, 9);
        assertThat(admittedUntilRejected(key, after)).isEqualTo(91);
        advance(key, 10_000);
        giveBack(key, before, 9);
        assertThat(admittedUntilRejected(key, after)).isBetween(19, 20);
    }

    /**
     * The capacity rose from 100 to 200 and the bucket holds 150 under the new rule: tokens given
     * back under the old capacity never lower it (they cannot raise it above the old one either).
     */
    @Test
    void aGiveBackUnderALowerCapacityNeverLowersTheBucket() {
        BucketKey key = freshKey();
        BucketLimits before = RateLimitRule.of(100, 0.001).limits();
        BucketLimits after = RateLimitRule.of(200, 0.001).limits();
        lease(key, after, 50);
        giveBack(key, before, 9);
        assertThat(microsHeld(key, after) / M).isEqualTo(150);
        assertThat(admittedUntilRejected(key, after)).isEqualTo(150);
    }

    /** The capacity fell from 100 to 10: whatever a give-back adds, a reader sees at most 10. */
    @Test
    void aGiveBackUnderAHigherCapacityIsCappedByTheReadersCapacity() {
        BucketKey key = freshKey();
        BucketLimits before = RateLimitRule.of(100, 0.001).limits();
        BucketLimits after = RateLimitRule.of(10, 0.001).limits();
        lease(key, before, 50);
        assertThat(admittedUntilRejected(key, after)).isEqualTo(10);
        giveBack(key, before, 50);
        assertThat(admittedUntilRejected(key, after)).isEqualTo(10);
    }
}
