package dev.tollgate.spring.admin;

import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code GET /admin/health}: the health endpoint's answer with every contributor's details (error
 * text, addresses, the local-state folder, disk figures), which {@code /actuator/health} shows to no
 * one by default. Answered with the status code {@code /actuator/health} would give (the configured
 * {@code management.endpoint.health.status.http-mapping}), so that the two never disagree.
 */
public final class HealthDetails {

    private HealthDetails() {
    }

    public static Mono<ServerResponse> of(HealthEndpoint endpoint, HttpCodeStatusMapper codes) {
        // Contributors may block (PostgreSQL, disk): never on an event loop.
        return Mono.fromCallable(endpoint::health)
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(health -> ServerResponse.status(codes.getStatusCode(health.getStatus()))
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(health));
    }
}
