package dev.tollgate.spring.settings;

/**
 * What to do with requests while no API key can be checked, because the database has been
 * unreachable since this instance started and no snapshot it saved could be restored (see
 * {@code SnapshotFile}; once anything is loaded, the last snapshot stays in force).
 */
public enum UnverifiedKeyPolicy {
    /**
     * Serve them, all in one shared bucket per route under the default rule: the backend stays
     * protected (the whole unverified traffic gets one default allowance), and some traffic passes.
     */
    SHARED_DEFAULT_RULE,
    /** Answer 503 with {@code Retry-After}: nothing passes unauthenticated. */
    REJECT
}
