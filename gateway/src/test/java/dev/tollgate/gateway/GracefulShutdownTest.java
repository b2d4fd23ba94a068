package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RedisKeys;
import dev.tollgate.redis.InstanceHeartbeat;
import dev.tollgate.spring.instances.LiveInstances;
import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a gateway owes Redis when it stops: the unspent tokens of its leases, and the removal of its
 * heartbeat so the others stop counting it at once. Both go out over Tollgate's connections, which
 * run on the HTTP server's event loops: they must leave before Spring stops those loops.
 */
class GracefulShutdownTest {

    private static final long CAPACITY = 1_000;
    private static final long MICROS_PER_TOKEN = 1_000_000;

    @Test
    void aStoppingGatewayGivesBackItsLeasedTokensAndTakesItsHeartbeatOff() {
        try (RedisServer redis = RedisServer.start();
             TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> p = RunningGateway.leasingOn(redis);
            p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
            // Refill of one micro-token per millisecond: well under a token over the whole test.
            p.putAll(RunningGateway.rule(0, "hot", "create-order", CAPACITY, 0.001));
            String bucket = RedisKeys.bucket("hot", "create-order");

            RunningGateway gateway = RunningGateway.start(p);
            String instance = gateway.context().getBean(LiveInstances.class).instanceId();
            assertThat(redis.command("ZSCORE", InstanceHeartbeat.DEFAULT_KEY, instance)).isNotEqualTo("(nil)");
            int admitted = 0;
            // Until the gateway holds leased tokens it has not spent (Redis has fewer than
            // capacity - admitted); a lease can happen to be used up exactly, hence the loop.
            while (admitted < 300 || tokensInRedis(redis, bucket) >= CAPACITY - admitted) {
                assertThat(gateway.send("POST", "/orders", "hot").statusCode()).isEqualTo(200);
                admitted++;
                assertThat(admitted).as("requests before a lease with unspent tokens").isLessThan(600);
            }

            gateway.close();

            assertThat(tokensInRedis(redis, bucket)).as("tokens in Redis once the gateway stopped")
                    .isBetween((double) (CAPACITY - admitted), CAPACITY - admitted + 0.5);
            assertThat(redis.command("ZSCORE", InstanceHeartbeat.DEFAULT_KEY, instance))
                    .as("the stopped instance's heartbeat").isEqualTo("(nil)");
        }
    }

    /** Whole and fractional tokens the bucket holds in Redis as last written (no refill applied). */
    private static double tokensInRedis(RedisServer redis, String bucket) {
        return Double.parseDouble(redis.command("HGET", bucket, "tokens")) / MICROS_PER_TOKEN;
    }
}
