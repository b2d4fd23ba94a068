package dev.tollgate.spring.limiter;

/** Who decided a request. */
public enum DecisionSource {
    /** The shared bucket in Redis, one call for this request: cluster-wide accurate. */
    REDIS("redis"),
    /** Tokens this instance leased from the shared bucket (a hot key), without a call for this request. */
    LEASE("lease"),
    /** This instance's share of the limit, while Redis is slow or unreachable. */
    LOCAL_FALLBACK("local-fallback");

    private final String tag;

    DecisionSource(String tag) {
        this.tag = tag;
    }

    /** The value used in metric tags, logs and health details. */
    public String tag() {
        return tag;
    }
}
