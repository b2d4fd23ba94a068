package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.Credentials;
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
        HttpClientResponse response = firstAnswer(target, BenchRoutes.PROBE_TENANT, null);
        if (response == null || response.status().code() != 200) {
            throw new IllegalStateException(target.name() + " answered " + (response == null ? "nothing"
                    : response.status()) + " to the probe");
        }
        boolean remaining = response.responseHeaders().contains("X-RateLimit-Remaining");
        boolean builtInHeaders = response.responseHeaders().contains("X-RateLimit-Replenish-Rate");
        // A request with several limits names each in RateLimit-Policy; one with a single bucket, only it.
        String policy = response.responseHeaders().get("RateLimit-Policy", "");
        boolean threeLimits = BenchRoutes.THREE_LIMIT_NAMES.stream().allMatch(n -> policy.contains("\"" + n + "\""));
        boolean tollgate = remaining && !builtInHeaders && !threeLimits;
        boolean ok = switch (variant) {
            case NO_LIMITER -> !remaining && !builtInHeaders;
            case TOLLGATE -> tollgate;
            case TOLLGATE_THREE_LIMITS -> remaining && !builtInHeaders && threeLimits;
            case BUILT_IN -> remaining && builtInHeaders;
            // an api-key route answers a request that names no one 401; an anonymous one serves it
            case TOLLGATE_ANONYMOUS -> tollgate && status(target, "no-one", Credentials.none()) == 200;
            // the token served the probe; without one, the route wants a key
            case TOLLGATE_JWT -> tollgate && status(target, "no-one", Credentials.none()) == 401;
            // a key never issued is unknown (the static source would take it as a tenant's name)
            case TOLLGATE_KEYS -> tollgate && status(target, BenchRoutes.BOGUS_KEY_PREFIX + "check", Credentials.apiKey()) == 401;
            // more failures than the default limit (30) allows, and not one refused for it
            case TOLLGATE_KEYS_NO_FAILURE_LIMIT -> tollgate && java.util.stream.IntStream.range(0, 40)
                    .allMatch(i -> status(target, BenchRoutes.BOGUS_KEY_PREFIX + "check-" + i, Credentials.apiKey()) == 401);
        };
        if (!ok) {
            throw new IllegalStateException(target.name() + " does not look like " + variant.label()
                    + ": response headers " + response.responseHeaders());
        }
    }

    private static int status(HttpTarget target, String caller, Credentials as) {
        HttpClientResponse response = firstAnswer(target, caller, as);
        return response == null ? -1 : response.status().code();
    }

    /**
     * The probe's answer, asked up to three times: a gateway's first request of a kind (the JWT
     * gateway's first fetches the JWK set and loads the verifier) can outlast the target's response
     * timeout on a busy machine, and that says nothing about which variant it is.
     */
    private static HttpClientResponse firstAnswer(HttpTarget target, String caller, Credentials as) {
        RuntimeException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return (as == null ? target.probe(BenchRoutes.BENCH_PATH, caller)
                        : target.probe(BenchRoutes.BENCH_PATH, caller, as)).block(Duration.ofSeconds(30));
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException(target.name() + " did not answer the variant probe in three tries", last);
    }
}
