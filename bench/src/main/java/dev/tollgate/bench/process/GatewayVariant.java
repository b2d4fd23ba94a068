package dev.tollgate.bench.process;

/** The gateways compared: the same Tollgate jar, configured several ways. */
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
     * Tollgate's filter with a default plan of three limits: a token bucket on each route,
     * one on the whole tenant and a UTC day quota, all far above any load the benchmark offers, so
     * that every request does the whole work of the multi-limit path (one EVALSHA of
     * {@code multi_limit.lua} over three limits) and none is rejected. Only the saturation scenario
     * runs it, beside {@link #NO_LIMITER} and {@link #TOLLGATE}.
     */
    TOLLGATE_THREE_LIMITS("Tollgate, 3 limits", "tollgate-3-limits"),

    /**
     * Tollgate with the {@code bench} route's identity {@code anonymous}: every caller is
     * limited by its client address, keys unread. 127.0.0.1 is a trusted proxy, so each caller's
     * address comes from its {@code X-Forwarded-For} (a gateway behind a load balancer) and a mix of
     * many callers is many address groups, as a mix of many tenants is many tenants. Saturation only.
     */
    TOLLGATE_ANONYMOUS("Tollgate, anonymous", "tollgate-anonymous"),

    /**
     * Tollgate taking the tenant from a bearer token's {@code tenant} claim, verified
     * against the JWK set the benchmark serves on 127.0.0.1 ({@code tollgate.jwt.jwk-set-uri});
     * requests carry an RS256 token and no key. Saturation only.
     */
    TOLLGATE_JWT("Tollgate, JWT", "tollgate-jwt"),

    /**
     * Tollgate whose API keys are looked up in a directory of issued keys (a plugin replaces the
     * static source's "every key is its tenant"), so that a bogus key is {@code 401 unknown-api-key};
     * the failed-authentication limit at its defaults. The bogus-key flood's gateway.
     */
    TOLLGATE_KEYS("Tollgate, failure limit on", "tollgate-keys"),

    /** {@link #TOLLGATE_KEYS} with {@code tollgate.auth-failures.enabled=false}. */
    TOLLGATE_KEYS_NO_FAILURE_LIMIT("Tollgate, failure limit off", "tollgate-keys-no-limit");

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

    /** Whether this is Tollgate's filter (its decision counters can be read). */
    public boolean isTollgate() {
        return this != NO_LIMITER && this != BUILT_IN;
    }

    /** Whether the gateway jar runs with a plugin on its {@code loader.path}. */
    public boolean hasPlugin() {
        return this == BUILT_IN || this == TOLLGATE_KEYS || this == TOLLGATE_KEYS_NO_FAILURE_LIMIT;
    }
}
