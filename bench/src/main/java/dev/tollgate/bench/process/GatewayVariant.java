package dev.tollgate.bench.process;

/** The gateways compared: the same Tollgate jar, configured four ways. */
public enum GatewayVariant {

    /** {@code tollgate.enabled=false}: Spring Cloud Gateway routing only, the baseline for added latency. */
    NO_LIMITER("no limiter", "no-limiter"),

    /** Tollgate's filter: one EVALSHA of {@code token_bucket.lua} per request. */
    TOLLGATE("Tollgate", "tollgate"),

    /**
     * Tollgate's filter off, Spring Cloud Gateway's own {@code RequestRateLimiter} filter with
     * {@code RedisRateLimiter} on the same Redis, keyed on the API key.
     */
    BUILT_IN("SCG RedisRateLimiter", "builtin"),

    /**
     * Tollgate's filter with a default plan of three limits (issue 22): a token bucket on each route,
     * one on the whole tenant and a UTC day quota, all far above any load the benchmark offers, so
     * that every request does the whole work of the multi-limit path (one EVALSHA of
     * {@code multi_limit.lua} over three limits) and none is rejected. Only the saturation scenario
     * runs it, beside {@link #NO_LIMITER} and {@link #TOLLGATE}.
     */
    TOLLGATE_THREE_LIMITS("Tollgate, 3 limits", "tollgate-3-limits");

    private final String label;
    private final String id;

    GatewayVariant(String label, String id) {
        this.label = label;
        this.id = id;
    }

    /** Short name for log files. */
    public String id() {
        return id;
    }

    public String label() {
        return label;
    }
}
