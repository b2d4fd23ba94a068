package dev.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.testkit.RedisServer;
import dev.tollgate.testkit.TestUpstream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** Spring Boot's structured logging, switched on by configuration, carries Tollgate's rejection lines. */
// Alone: it reads what the whole JVM prints, which a class running beside it would add to.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class StructuredLoggingTest {

    @Test
    void rejectionsAreLoggedAsJsonLines(CapturedOutput output) throws Exception {
        try (RedisServer redis = RedisServer.start(); TestUpstream upstream = new TestUpstream()) {
            Map<String, Object> p = new HashMap<>();
            p.put("tollgate.source", "static");
            p.put("spring.data.redis.port", Integer.toString(redis.port()));
            p.put("tollgate.redis.timeout", "5s");
            p.put("logging.structured.format.console", "ecs");
            // Spring Boot's own logback setup (the test classpath otherwise has a plain-text one).
            p.put("logging.config", "classpath:logback-structured.xml");
            p.putAll(RunningGateway.route(0, "create-order", "POST", "/orders", upstream.uri()));
            p.putAll(RunningGateway.rule(0, "json-tenant", "create-order", 1, 0.001));
            try (RunningGateway gateway = RunningGateway.start(p)) {
                gateway.send("POST", "/orders", "json-tenant");
                assertThat(gateway.send("POST", "/orders", "json-tenant").statusCode()).isEqualTo(429);
            }
        }
        String line = output.getOut().lines()
                .filter(l -> l.contains("Rejected tenant 'json-tenant'"))
                .findFirst().orElseThrow();
        assertThat(line).startsWith("{").endsWith("}")
                .contains("\"level\":\"INFO\"")
                .contains("\"logger\":\"dev.tollgate.spring.limiter.RejectionLog\"");
    }
}
