package dev.tollgate.core;

/**
 * When and how much {@link LeasingBucketStore} leases: validated when built, failing with the bad
 * value.
 *
 * @param hotRequestsPerSecond requests per second for one key, seen by this instance, from which the
 *                             key is leased (it stays leased until its rate falls below half of
 *                             this); 0 leases every key
 * @param leaseMillis          a batch is sized to last this long at the key's observed rate
 * @param maxBatchTokens       upper bound of a batch, in tokens
 * @param maxCapacityShare     upper bound of a batch as a share of the bucket's capacity, in (0, 1]
 * @param leaseTtlMillis       how long leased tokens may stay unspent before they are given back;
 *                             at least {@code leaseMillis}
 */
public record LeasePolicy(double hotRequestsPerSecond, long leaseMillis, long maxBatchTokens,
                          double maxCapacityShare, long leaseTtlMillis) {

    public LeasePolicy {
        if (!(hotRequestsPerSecond >= 0) || Double.isInfinite(hotRequestsPerSecond)) {
            throw new IllegalArgumentException(
                    "hotRequestsPerSecond must be a finite number >= 0, was " + hotRequestsPerSecond);
        }
        if (leaseMillis < 1 || leaseMillis > 60_000) {
            throw new IllegalArgumentException("leaseMillis must be in [1, 60000], was " + leaseMillis);
        }
        if (maxBatchTokens < 1 || maxBatchTokens > RateLimitRule.MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "maxBatchTokens must be in [1, " + RateLimitRule.MAX_CAPACITY + "], was " + maxBatchTokens);
        }
        if (!(maxCapacityShare > 0) || maxCapacityShare > 1) {
            throw new IllegalArgumentException("maxCapacityShare must be in (0, 1], was " + maxCapacityShare);
        }
        if (leaseTtlMillis < leaseMillis || leaseTtlMillis > 3_600_000) {
            // A batch meant to last leaseMillis would be given back before it could be spent.
            throw new IllegalArgumentException("leaseTtlMillis must be in [leaseMillis = " + leaseMillis
                    + ", 3600000], was " + leaseTtlMillis);
        }
    }

    /**
     * Whether a key (or charge set) seen at {@code requestsPerSecond} by this instance is leased: from
     * {@link #hotRequestsPerSecond()} on, and, once leased, until its rate falls below half of that, so
     * that a key whose rate hovers around the threshold does not flap between leasing and one call per
     * request. Both leasing paths decide it here.
     */
    public boolean isHot(boolean wasHot, double requestsPerSecond) {
        return wasHot ? requestsPerSecond >= hotRequestsPerSecond / 2 : requestsPerSecond >= hotRequestsPerSecond;
    }

    /**
     * The largest batch for a bucket: {@code min(maxBatchTokens, floor(capacity × maxCapacityShare))},
     * rounded down to a whole number of requests' cost; 0 when that is less than one request (such a
     * bucket is never leased). Every over-admission bound of {@link LeasingBucketStore} is in terms of
     * this value.
     */
    public long maxBatchMicros(BucketLimits limits) {
        long byShare = (long) Math.floor(limits.capacityMicros() * maxCapacityShare);
        long byCount = maxBatchTokens * BucketLimits.MICROS_PER_TOKEN;
        long bound = Math.min(byShare, byCount);
        return bound / limits.costMicros() * limits.costMicros();
    }

    /**
     * The batch for a key seen at {@code requestsPerSecond} by this instance: enough requests for
     * {@link #leaseMillis()} at that rate (at least one), capped by {@link #maxBatchMicros}.
     */
    public long batchMicros(double requestsPerSecond, BucketLimits limits) {
        long max = maxBatchMicros(limits);
        double wanted = Math.ceil(requestsPerSecond * leaseMillis / 1000d);
        long requests = Math.max(1L, (long) Math.min(wanted, (double) (max / limits.costMicros())));
        return Math.min(max, requests * limits.costMicros());
    }
}
