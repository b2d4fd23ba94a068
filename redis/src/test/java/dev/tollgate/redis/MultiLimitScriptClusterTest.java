package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.testkit.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The multi-limit script's contract on a real Redis Cluster (3 masters, 3 replicas): a request's keys
 * ({@code rl:{tenant}:route}, {@code rl:{tenant}}) share the tenant's slot, so one call takes them all.
 */
class MultiLimitScriptClusterTest extends MultiLimitScriptContract {

    private static RedisCluster cluster;
    private static RedisClusterClient client;
    private static ScriptCalls calls;
    private static RedisClusterCommands<byte[], byte[]> bytes;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
        client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
        client.setOptions(RecommendedClusterClientOptions.defaults()
                .withPeriodicRefresh(Duration.ofSeconds(1)).toClientOptions());
        calls = ScriptCalls.on(client.connect());
        bytes = client.connect(ByteArrayCodec.INSTANCE).sync();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected ScriptCalls calls() {
        return calls;
    }

    @Override
    protected RedisClusterCommands<byte[], byte[]> bytes() {
        return bytes;
    }

    @Override
    protected StatefulConnection<String, String> newConnection() {
        return client.connect();
    }

    @Override
    protected int parallelConnections() {
        return 4; // each cluster connection links to all six nodes
    }

    /** The layout with a key per route (the default keeps a tenant's states in one key: one slot trivially). */
    private static final MultiLimitScript.Layout ROUTE_KEYS = MultiLimitScript.Layout.ROUTE_AND_TENANT_KEYS;

    @Test
    void aRequestsRouteAndTenantKeysShareOneSlot() {
        Limit rate = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(5, 1));
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(10, QuotaPeriod.DAY));
        for (int i = 0; i < 50; i++) {
            String tenant = "slot-" + i;
            String routeKey = MultiLimitScript.redisKey(rate.keyFor(tenant, "orders"), ROUTE_KEYS);
            String tenantKey = MultiLimitScript.redisKey(day.keyFor(tenant, "orders"), ROUTE_KEYS);
            assertThat(cluster.slotOf(routeKey)).isEqualTo(cluster.slotOf(tenantKey));
            assertThat(new MultiLimitScript(calls, ROUTE_KEYS).decide(List.of(LimitCharge.of(tenant, "orders", rate),
                    LimitCharge.of(tenant, "orders", day))).join().decision().admitted()).isTrue();
            assertThat(cluster.masterOf(tenantKey).command("EXISTS", routeKey, tenantKey)).isEqualTo(":2");
        }
    }
}
