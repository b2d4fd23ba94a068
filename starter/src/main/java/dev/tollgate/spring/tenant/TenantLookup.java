package dev.tollgate.spring.tenant;

/**
 * What the API key of a request says about who sends it: one of four answers, each handled by the
 * rate-limit filter in its own way (served as the tenant, 401, served in a shared bucket, 503).
 */
public sealed interface TenantLookup
        permits TenantLookup.Verified, TenantLookup.UnknownKey, TenantLookup.Unverified, TenantLookup.Unavailable {

    /** No tenant has this key: never issued, revoked or deleted. */
    TenantLookup UNKNOWN_KEY = new UnknownKey();

    /** Keys cannot be checked yet; the request is served in the bucket all such requests share. */
    TenantLookup UNVERIFIED = new Unverified();

    /** Keys cannot be checked yet, and requests are refused until they can. */
    TenantLookup UNAVAILABLE = new Unavailable();

    /** The key belongs to {@code tenant}. */
    static TenantLookup verified(String tenant) {
        return new Verified(tenant);
    }

    /** The key belongs to {@code tenant}. */
    record Verified(String tenant) implements TenantLookup {

        public Verified {
            if (tenant == null || tenant.isEmpty()) {
                throw new IllegalArgumentException("a verified key belongs to a named tenant");
            }
        }
    }

    /** No tenant has this key. */
    record UnknownKey() implements TenantLookup {
    }

    /**
     * Keys cannot be checked yet (the database has not been read since this instance started) and
     * the request is served anyway, limited in one bucket per route shared by every such request.
     */
    record Unverified() implements TenantLookup {

        /**
         * The tenant id of the shared buckets. The {@code ?} cannot occur in a tenant id stored
         * through the admin API, so no real tenant can collide with it.
         */
        public static final String SHARED_BUCKET_TENANT = "?unverified";
    }

    /** Keys cannot be checked yet, and the request is refused with 503 until they can. */
    record Unavailable() implements TenantLookup {
    }
}
