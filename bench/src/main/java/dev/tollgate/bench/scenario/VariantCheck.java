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
        boolean ok = switch (variant) {
            case NO_LIMITER -> !remaining && !builtInHeaders;
            case TOLLGATE -> remaining && !builtInHeaders;
            case BUILT_IN -> remaining && builtInHeaders;
        };
        if (!ok) {
            throw new IllegalStateException(target.name() + " does not look like " + variant.label()
                    + ": response headers " + response.responseHeaders());
        }
    }
}
