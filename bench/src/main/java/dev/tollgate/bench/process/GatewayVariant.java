package dev.tollgate.bench.process;

/** The gateways compared: the same Tollgate jar, configured three ways. */
public enum GatewayVariant {

    /** {@code tollgate.enabled=false}: Spring Cloud Gateway routing only, the baseline for added latency. */
    NO_LIMITER("no limiter", "no-limiter"),

    /** Tollgate's filter: one EVALSHA of {@code token_bucket.lua} per request. */
    TOLLGATE("Tollgate", "tollgate"),

    /**
     * Tollgate's filter off, Spring Cloud Gateway's own {@code RequestRateLimiter} filter with
     * {@code RedisRateLimiter} on the same Redis, keyed on the API key.
     */
    BUILT_IN("SCG RedisRateLimiter", "builtin");

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
