package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's first command: dev mode serves the seed's curl demo with nothing installed. */
class DevModeTest {

    @Test
    void theSeedCurlLoopPrints200_200_429AndEverythingStopsWithTheGateway() {
        RedisServer devRedis;
        try (RunningGateway gateway = RunningGateway.start(Map.of(), "dev")) {
            devRedis = gateway.context().getBean(RedisServer.class);
            List<Integer> codes = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                codes.add(gateway.send("POST", "/orders", "shop-a").statusCode());
            }
            assertThat(codes).containsExactly(200, 200, 429);
            assertThat(gateway.send("GET", "/orders", "shop-a").body()).contains("tollgate-demo");
            assertThat(devRedis.isAlive()).isTrue();
        }
        assertThat(devRedis.isAlive()).isFalse();
    }
}
