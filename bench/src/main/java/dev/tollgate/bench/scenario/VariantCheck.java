package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.HttpTarget;
import dev.tollgate.bench.process.BenchRoutes;
import dev.tollgate.bench.process.GatewayVariant;
import java.time.Duration;
import reactor.netty.http.client.HttpClientResponse;

/**
 * Makes sure each gateway is the variant it claims to be before anything is measured: a wrong
 * switch would otherwise compare a gateway with itself and look like a great result.
 */
public final class VariantCheck {

    private VariantCheck() {
    }

    public static void verify(HttpTarget target, GatewayVariant variant) {
        HttpClientResponse response = target.probe(BenchRoutes.BENCH_PATH, "variant-check")
                .block(Duration.ofSeconds(30));
        if (response == null || response.status().code() != 200) {
            throw new IllegalStateException(target.name() + " answered " + (response == null ? "nothing"
                    : response.status()) + " to the probe");
        }
        boolean remaining = response.responseHeaders().contains("X-RateLimit-Remaining");
        boolean builtInHeaders = response.responseHeaders().contains("X-RateLimit-Replenish-Rate");
        // A request with several limits names each in RateLimit-Policy; one with a single bucket, only it.
        String policy = response.responseHeaders().get("RateLimit-Policy", "");
        boolean threeLimits = BenchRoutes.THREE_LIMIT_NAMES.stream().allMatch(n -> policy.contains("\"" + n + "\""));
        boolean ok = switch (variant) {
            case NO_LIMITER -> !remaining && !builtInHeaders;
            case TOLLGATE -> remaining && !builtInHeaders && !threeLimits;
            case TOLLGATE_THREE_LIMITS -> remaining && !builtInHeaders && threeLimits;
            case BUILT_IN -> remaining && builtInHeaders;
        };
        if (!ok) {
            throw new IllegalStateException(target.name() + " does not look like " + variant.label()
                    + ": response headers " + response.responseHeaders());
        }
    }
}
