package dev.tollgate.core;

/**
 * The bucket-store contract for a store that leases every key (threshold 0): leases sized to the
 * observed rate must still give exact answers on a manual clock.
 */
class LeasingBucketStoreContractTest extends BucketStoreContract {

    private final ManualClock clock = new ManualClock(987_654_321L);
    private final LocalBucketStore shared = new LocalBucketStore(clock);
    private final LeasingBucketStore store = new LeasingBucketStore(shared, shared,
            new LeasePolicy(0, 100, 1_000_000, 1.0, 1000), clock);

    @Override
    protected BucketStore store() {
        return store;
    }

    @Override
    protected void advance(BucketKey key, long millis) {
        clock.advanceMillis(millis);
    }
}
