package dev.tollgate.bench.report;

import dev.tollgate.bench.process.GatewayVariant;

/** Names of the load targets as they appear in the report. */
public final class Targets {

    public static final String DIRECT = "direct to upstream";
    public static final String NO_LIMITER = GatewayVariant.NO_LIMITER.label();
    public static final String TOLLGATE = GatewayVariant.TOLLGATE.label();
    public static final String BUILT_IN = GatewayVariant.BUILT_IN.label();
    public static final String TOLLGATE_THREE_LIMITS = GatewayVariant.TOLLGATE_THREE_LIMITS.label();
    public static final String TOLLGATE_ANONYMOUS = GatewayVariant.TOLLGATE_ANONYMOUS.label();
    public static final String TOLLGATE_JWT = GatewayVariant.TOLLGATE_JWT.label();
    public static final String FAILURE_LIMIT_ON = GatewayVariant.TOLLGATE_KEYS.label();
    public static final String FAILURE_LIMIT_OFF = GatewayVariant.TOLLGATE_KEYS_NO_FAILURE_LIMIT.label();

    private Targets() {
    }
}
