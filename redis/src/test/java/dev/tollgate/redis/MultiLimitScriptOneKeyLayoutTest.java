package dev.tollgate.redis;


/** The multi-limit script's contract with every state of a tenant in one key ({@link MultiLimitScript.Layout#ONE_KEY_PER_TENANT}), on Redis 7. */
class MultiLimitScriptOneKeyLayoutTest extends StandaloneMultiLimitScriptContract {

    @Override
    protected LiveRedis startRedis() {
        return LiveRedis.start();
    }

    @Override
    protected MultiLimitScript.Layout layout() {
        return MultiLimitScript.Layout.ONE_KEY_PER_TENANT;
    }
}
