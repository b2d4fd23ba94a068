package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitCharge;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import dev.tollgate.testkit.CommandCounts;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import io.netty.channel.DefaultEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The multi-limit script's contract on one standalone Redis server ({@link LiveRedis}), started once
 * per test class by {@link #startRedis()}: what differs between the servers and layouts tested is
 * only which server runs and, where a subclass says so, the key layout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StandaloneMultiLimitScriptContract extends MultiLimitScriptContract {

    protected LiveRedis redis;
    private ScriptCalls calls;
    private RedisClusterCommands<byte[], byte[]> bytes;

    /** The server this class tests on, with its client. */
    protected abstract LiveRedis startRedis();

    @BeforeAll
    void start() {
        redis = startRedis();
        calls = ScriptCalls.on(redis.connection);
        bytes = redis.client.connect(ByteArrayCodec.INSTANCE).sync();
    }

    @AfterAll
    void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    /**
     * Requests made on one event loop in one turn (as the gateway's HTTP loops make them) are decided
     * in one script call, in order: of 20 requests of one tenant under a day quota of 12 (and a bucket
     * per route), exactly the first 12 are admitted.
     */
    @Test
    void requestsOfOneLoopTurnAreDecidedInOneCallInOrder() throws Exception {
        String tenant = "turn-" + System.nanoTime();
        Limit perRoute = new Limit("rate", LimitScope.eachRoute(), new TokenBucket(50, 0.001));
        Limit day = new Limit("day", LimitScope.tenant(), new CalendarQuota(12, QuotaPeriod.DAY));
        MultiLimitScript script = new MultiLimitScript(calls, layout());
        script.decide(List.of(LimitCharge.of("warm-" + tenant, "r", day))).join(); // the script is cached
        redis.connection.sync().configResetstat();
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            CompletableFuture<List<CompletableFuture<MultiLimitScript.Reply>>> issued = new CompletableFuture<>();
            loop.execute(() -> {
                List<CompletableFuture<MultiLimitScript.Reply>> replies = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    String route = "r" + i % 3;
                    replies.add(script.decide(List.of(LimitCharge.of(tenant, route, perRoute),
                            LimitCharge.of(tenant, route, day))));
                }
                issued.complete(replies);
            });
            List<Boolean> admitted = new ArrayList<>();
            for (CompletableFuture<MultiLimitScript.Reply> reply : issued.get(5, TimeUnit.SECONDS)) {
                admitted.add(reply.get(5, TimeUnit.SECONDS).decision().admitted());
            }
            assertThat(admitted.subList(0, 12)).containsOnly(true);
            assertThat(admitted.subList(12, 20)).containsOnly(false);
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        assertThat(CommandCounts.parse(redis.connection.sync().info("commandstats")).scriptCalls()).isEqualTo(1);
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
        return redis.client.connect();
    }
}
