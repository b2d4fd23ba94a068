package dev.tollgate.spring.filter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import reactor.core.publisher.Mono;

/**
 * {@code #{@tollgateRateLimiter}} with the limiter switched off ({@code tollgate.enabled=false}):
 * admits every request and adds no header, so that an application whose routes name Tollgate's
 * limiter starts and serves them unlimited, as if the filter were not there.
 */
public final class UnlimitedRateLimiter implements RateLimiter<UnlimitedRateLimiter.Config> {

    private static final Mono<Response> ADMITTED = Mono.just(new Response(true, Map.of()));

    private final Map<String, Config> config = new ConcurrentHashMap<>();

    /** Filter arguments: none. */
    public static final class Config {
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        return ADMITTED;
    }

    @Override
    public Map<String, Config> getConfig() {
        return config;
    }

    @Override
    public Class<Config> getConfigClass() {
        return Config.class;
    }

    @Override
    public Config newConfig() {
        return new Config();
    }
}
