package dev.tollgate.redis;


/** The multi-limit script's contract with a key per route and one for the tenant's totals ({@link MultiLimitScript.Layout#ROUTE_AND_TENANT_KEYS}), on Redis 7. */
class MultiLimitScriptRouteKeysLayoutTest extends StandaloneMultiLimitScriptContract {

    @Override
    protected LiveRedis startRedis() {
        return LiveRedis.start();
    }

    @Override
    protected MultiLimitScript.Layout layout() {
        return MultiLimitScript.Layout.ROUTE_AND_TENANT_KEYS;
    }
}
