package dev.tollgate.core;

import java.util.concurrent.CompletionStage;

/**
 * Charges a shared bucket with admissions it did not decide: what an instance admitted on its own
 * (its local fallback) while the shared store could not be asked, so that the store does not come
 * back with a bucket refilled by the whole outage (see {@link LocalFallbackLimiter#takeUnreported}).
 */
public interface BucketCharges {

    /**
     * Refills the bucket of {@code key} up to now, then takes {@code micros} from it, or all it holds
     * if that is less. Decides nothing and never fails for want of tokens; fails only when the store
     * cannot be reached, and then the admissions stay uncharged.
     */
    CompletionStage<Void> charge(BucketKey key, BucketLimits limits, long micros);
}
