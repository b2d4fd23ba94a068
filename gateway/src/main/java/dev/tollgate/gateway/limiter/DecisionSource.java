package dev.tollgate.gateway.limiter;

/** Who decided a request. */
public enum DecisionSource {
    /** The shared bucket in Redis: cluster-wide accurate. */
    REDIS,
    /** This instance's share of the limit, while Redis is slow or unreachable. */
    LOCAL_FALLBACK;

    /** The value used in metric tags and health details. */
    public String tag() {
        return this == REDIS ? "redis" : "local-fallback";
    }
}
